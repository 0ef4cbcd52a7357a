import { ActionIcon, Box, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { INCOMING_CALL_STRINGS as S } from '@parley/contracts';
import { IconPhoneCall, IconPhoneCheck, IconPhoneOff, IconPhoneX } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { incomingCall, useIncomingCall } from './incomingCall';

const ROUTE = '/call/ongoing';

/**
 * NAV-17, CALL-15, CALL-16: the navigation's Incoming Call entry while a call rings: who calls, what they
 * pressed, their number, Accept (answers with audio and opens the ongoing call) and Decline.
 */
export function IncomingCallEntry({ collapsed, label }: { collapsed: boolean; label: string }) {
  const call = useIncomingCall();
  const navigate = useNavigate();
  if (!call || call.state !== 'ringing') return null;
  const accept = () => {
    incomingCall.accept();
    navigate(ROUTE);
  };
  const who = `${call.name}, ${call.number}`;
  if (collapsed)
    return (
      <Stack gap={4} align="center" py={4} data-testid="incoming-call" aria-label={`${label}: ${who}`} role="group">
        <Tooltip label={`${label}: ${who}`} position="right">
          <ActionIcon component={Link} to={ROUTE} variant="subtle" color="teal.9" size="lg" aria-label={label}>
            <IconPhoneCall size={20} />
          </ActionIcon>
        </Tooltip>
        <ActionIcon color="teal.9" aria-label={S.accept} onClick={accept}>
          <IconPhoneCheck size={16} />
        </ActionIcon>
        <ActionIcon color="red.9" aria-label={S.decline} onClick={incomingCall.decline}>
          <IconPhoneX size={16} />
        </ActionIcon>
      </Stack>
    );
  return (
    <Box
      p="xs"
      data-testid="incoming-call"
      role="group"
      aria-label={label}
      style={{
        borderRadius: 'var(--mantine-radius-md)',
        background: 'light-dark(var(--mantine-color-teal-0), var(--mantine-color-dark-5))',
      }}
    >
      <Group gap="xs" wrap="nowrap" mb={6}>
        <IconPhoneCall size={20} color="var(--mantine-color-teal-filled)" aria-hidden />
        <Text component={Link} to={ROUTE} fw={600} size="sm" c="var(--mantine-color-text)" td="none">
          {label}
        </Text>
      </Group>
      <Text size="sm" fw={500} truncate data-testid="caller-name">
        {call.name}
      </Text>
      {call.keypress && (
        <Text size="xs" c="dimmed" data-testid="caller-keypress">
          {call.keypress}
        </Text>
      )}
      <Text size="xs" c="dimmed" data-testid="caller-number">
        {call.number}
      </Text>
      <Group gap={6} mt={8} grow>
        <Button size="compact-sm" color="teal.9" onClick={accept}>
          {S.accept}
        </Button>
        <Button size="compact-sm" color="red.9" onClick={incomingCall.decline}>
          {S.decline}
        </Button>
      </Group>
    </Box>
  );
}

/** While a call is up: who it is with, and Hang up (the footer of the navigation panel). */
export function ActiveCallBar({ collapsed }: { collapsed: boolean }) {
  const call = useIncomingCall();
  if (!call || call.state !== 'active') return null;
  const text = S.onCall(call.name);
  return (
    <Group gap="xs" justify={collapsed ? 'center' : 'space-between'} wrap="nowrap" data-testid="active-call">
      {!collapsed && (
        <Text size="xs" fw={500} truncate>
          {text}
        </Text>
      )}
      <Tooltip label={`${text}: ${S.hangUp}`} position="right" disabled={!collapsed}>
        <ActionIcon color="red.9" aria-label={S.hangUp} onClick={incomingCall.hangUp}>
          <IconPhoneOff size={16} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}
