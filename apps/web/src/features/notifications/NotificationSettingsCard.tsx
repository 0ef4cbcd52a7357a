import { Button, Card, Group, SimpleGrid, Stack, Switch, Text, Title } from '@mantine/core';
import { channelName } from '@parley/contracts';
import { useEffect, useState } from 'react';
import { playNotification } from '../../lib/sound';
import { MESSAGE_CHANNELS, messagePref, onPrefsChange, soundPref } from './prefs';
import { registerWebPush, syncPushChoices } from './push';
import { NOTIFICATION_SETTINGS_STRINGS as S } from './strings';

type Permission = NotificationPermission | 'unsupported';
const permissionNow = (): Permission => (typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);

const readChoices = () => Object.fromEntries(MESSAGE_CHANNELS.map((c) => [c, messagePref.get(c)]));

/**
 * NOTIF-37, NOTIF-38 (design): the notification choices of this browser, kept in local storage:
 * TicketNotificationSound (yes/no) and MessageNotification_<CHANNEL> (yes/no, on until turned off), plus the
 * browser's notification permission. Shown on the Appearance settings section (every user has it). A changed
 * channel choice is sent with this browser's Web Push subscription, so pushes of new messages follow it too.
 */
export function NotificationSettingsCard() {
  const [sound, setSound] = useState(soundPref.get);
  const [choices, setChoices] = useState(readChoices);
  const [permission, setPermission] = useState<Permission>(permissionNow);

  useEffect(
    () =>
      onPrefsChange(() => {
        setSound(soundPref.get());
        setChoices(readChoices());
      }),
    [],
  );

  const allow = async () => {
    if (typeof Notification === 'undefined') return;
    const p = await Notification.requestPermission().catch(() => Notification.permission);
    setPermission(p);
    if (p === 'granted') void registerWebPush();
  };

  const permissionText: Record<Permission, string> = {
    granted: S.browserGranted,
    denied: S.browserDenied,
    default: S.browserDefault,
    unsupported: S.browserUnsupported,
  };

  return (
    <Card withBorder radius="md" padding="lg" data-testid="notification-settings">
      <Stack>
        <Title order={3} size="h4">
          {S.title}
        </Title>
        <Switch
          checked={sound}
          onChange={(e) => {
            const on = e.currentTarget.checked;
            soundPref.set(on);
            setSound(on);
            if (on) void playNotification();
          }}
          label={S.sound}
          description={S.soundHint}
          data-testid="notification-settings-sound"
        />
        <div>
          <Text size="sm" fw={500}>
            {S.browser}
          </Text>
          <Group gap="sm" mt={4}>
            <Text size="sm" c="dimmed" data-testid="notification-permission">
              {permissionText[permission]}
            </Text>
            {permission === 'default' && (
              <Button size="compact-sm" variant="light" onClick={() => void allow()}>
                {S.allow}
              </Button>
            )}
          </Group>
        </div>
        <div>
          <Text size="sm" fw={500} id="message-channels-label">
            {S.channels}
          </Text>
          <Text size="xs" c="dimmed" mb="xs">
            {S.channelsHint}
          </Text>
          <SimpleGrid
            cols={{ base: 1, sm: 2, md: 3 }}
            spacing="xs"
            role="group"
            aria-labelledby="message-channels-label"
          >
            {MESSAGE_CHANNELS.map((c) => (
              <Switch
                key={c}
                size="sm"
                checked={choices[c] ?? true}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  messagePref.set(c, on);
                  setChoices((v) => ({ ...v, [c]: on }));
                  syncPushChoices();
                }}
                label={channelName(c)}
                data-testid={`message-pref-${c}`}
              />
            ))}
          </SimpleGrid>
        </div>
      </Stack>
    </Card>
  );
}
