import { Card, SegmentedControl, Stack, Switch, Text, Title, useMantineColorScheme } from '@mantine/core';
import { richLinks, useCookieFlag } from '../../lib/prefs';

/** SHELL-65 .. SHELL-67: theme (light, dark, or following the system) and rich links, each in a cookie. */
export function AppearanceCard() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const [rich, setRich] = useCookieFlag(richLinks);
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          Appearance
        </Title>
        <div>
          <Text size="sm" fw={500} mb={4} id="theme-label">
            Theme
          </Text>
          <SegmentedControl
            aria-labelledby="theme-label"
            value={colorScheme}
            onChange={(v) => setColorScheme(v as 'light' | 'dark' | 'auto')}
            data={[
              { value: 'light', label: 'Light' },
              { value: 'dark', label: 'Dark' },
              { value: 'auto', label: 'Follow system' },
            ]}
          />
        </div>
        <Switch
          checked={rich}
          onChange={(e) => setRich(e.currentTarget.checked)}
          label="Rich links"
          description="Show a preview card under a link in a message."
        />
      </Stack>
    </Card>
  );
}
