import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { useRefreshSession, useSignOut } from '../../lib/session';
import { t } from './strings';
import { TwoFactorCard } from './TwoFactorCard';

/** The account requires two-factor sign-in and this user has not set it up: nothing else until they do. */
export function TwoFactorRequiredPage() {
  const refresh = useRefreshSession();
  const signOut = useSignOut();
  return (
    <Center mih="100dvh" p="md">
      <Stack maw={520} w="100%">
        <Title order={1} size="h3">
          {t.tfaRequiredTitle}
        </Title>
        <Text c="dimmed">{t.tfaRequiredText}</Text>
        <TwoFactorCard enabled={false} onChange={refresh} />
        <Button variant="subtle" onClick={signOut} w="fit-content">
          Log Out
        </Button>
      </Stack>
    </Center>
  );
}
