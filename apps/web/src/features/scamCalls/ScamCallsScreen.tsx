import {
  Alert,
  Anchor,
  Badge,
  Blockquote,
  Box,
  Button,
  CloseButton,
  Group,
  Loader,
  Paper,
  Select,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import {
  AI_GUIDANCE_STRINGS,
  callDuration,
  SCAM_CALL_STRINGS as S,
  SCAM_CALL_PAGE_SIZE,
  SCAM_KINDS,
  type ScamCall,
  type ScamKind,
} from '@parley/contracts';
import { IconPhoneIncoming, IconPhoneOutgoing, IconShieldExclamation } from '@tabler/icons-react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '../../lib/dates';
import { useSession } from '../../lib/session';
import { scamCallKeys, scamCallsApi } from './api';

const kindLabel = (k: ScamKind) => {
  const t = AI_GUIDANCE_STRINGS.scam[k];
  return t.charAt(0).toUpperCase() + t.slice(1);
};

/**
 * CALL-45, CALL-46, NAV-24: `/call_verification`, the calls the built-in engine read as possible scams from
 * what the caller said, newest first: the kind, the confidence, the caller's line and the cues that made it,
 * the numbers most flagged (a number filters the feed), a kind filter, 30 at a time. Admins of an account
 * with the `scam_calls` feature; anyone else opening the address is told so plainly.
 */
export function ScamCallsScreen() {
  const { state } = useSession();
  const session = state.phase === 'signedIn' ? state.session : undefined;
  const allowed = session?.type === 'admin' && (session.productDetails?.features ?? []).includes('scam_calls');
  if (!allowed)
    return (
      <Stack gap="md">
        <Title order={1} size="h2">
          {S.title}
        </Title>
        <Alert color="gray" data-testid="scam-not-allowed">
          {S.notAllowed}
        </Alert>
      </Stack>
    );
  return <ScamCalls />;
}

function ScamCalls() {
  const [kind, setKind] = useState('');
  const [number, setNumber] = useState('');
  const q = useInfiniteQuery({
    queryKey: scamCallKeys.feed(kind, number),
    queryFn: ({ pageParam }) => scamCallsApi.feed(pageParam, kind, number),
    initialPageParam: 0,
    getNextPageParam: (last, pages) =>
      last.data.length >= SCAM_CALL_PAGE_SIZE ? pages.reduce((n, p) => n + p.data.length, 0) : undefined,
  });
  const rows = q.data?.pages.flatMap((p) => p.data) ?? [];
  const first = q.data?.pages[0];
  const filtered = kind !== '' || number !== '';

  return (
    <Stack gap="md">
      <Group gap="xs" wrap="nowrap">
        <IconShieldExclamation size={26} stroke={1.6} aria-hidden color="var(--mantine-color-red-6)" />
        <Title order={1} size="h2">
          {S.title}
        </Title>
      </Group>
      <Text c="dimmed" size="sm" maw="48rem">
        {S.intro}
      </Text>
      <Box className="scam-layout" style={{ display: 'grid', gap: 'var(--mantine-spacing-md)', alignItems: 'start' }}>
        <Stack gap="sm" miw={0}>
          <Group gap="sm" align="end">
            <Select
              label="Kind"
              w="16rem"
              maw="100%"
              data={[{ value: '', label: 'All kinds' }, ...SCAM_KINDS.map((k) => ({ value: k, label: kindLabel(k) }))]}
              value={kind}
              onChange={(v) => setKind(v ?? '')}
              allowDeselect={false}
              data-testid="scam-kind"
            />
            {number && (
              <Badge
                size="lg"
                variant="light"
                color="red"
                data-testid="scam-number-filter"
                rightSection={<CloseButton size="xs" aria-label={`Show every number`} onClick={() => setNumber('')} />}
              >
                {number}
              </Badge>
            )}
            {first && (
              <Text size="sm" c="dimmed" data-testid="scam-total">
                {S.flaggedCalls(first.total)}
              </Text>
            )}
          </Group>
          {q.isError && <Alert color="red">{(q.error as Error).message}</Alert>}
          {q.isLoading ? (
            <Group justify="center" p="lg">
              <Loader aria-label="Loading" />
            </Group>
          ) : rows.length === 0 && !q.isError ? (
            <Text c="dimmed" data-testid="scam-empty">
              {filtered ? S.emptyFiltered : S.empty}
            </Text>
          ) : (
            rows.map((r) => <FlaggedCall key={r.ticket_id} r={r} onNumber={setNumber} />)
          )}
          {q.hasNextPage && (
            <Button
              variant="default"
              onClick={() => void q.fetchNextPage()}
              loading={q.isFetchingNextPage}
              data-testid="scam-more"
            >
              Show More...
            </Button>
          )}
        </Stack>
        {first && first.numbers.length > 0 && (
          <Paper withBorder radius="md" p="md" component="aside" aria-label={S.numbers} data-testid="scam-numbers">
            <Text fw={600} size="sm" mb="xs">
              {S.numbers}
            </Text>
            <Stack gap={4}>
              {first.numbers.map((n) => (
                <UnstyledButton
                  key={n.number}
                  onClick={() => setNumber(n.number)}
                  aria-pressed={number === n.number}
                  className="scam-number"
                  p={6}
                  style={{ borderRadius: 'var(--mantine-radius-sm)' }}
                >
                  <Group justify="space-between" gap="xs" wrap="nowrap">
                    <Text size="sm" ff="monospace">
                      {n.number}
                    </Text>
                    <Badge color="red" variant={n.calls > 1 ? 'filled' : 'light'} size="sm">
                      {n.calls}
                    </Badge>
                  </Group>
                  <Text size="xs" c="dimmed">
                    Last {formatDateTime(n.last_at)}
                  </Text>
                </UnstyledButton>
              ))}
            </Stack>
          </Paper>
        )}
      </Box>
      <style>{`.scam-layout { grid-template-columns: minmax(0, 1fr); }
@media (min-width: 62em) { .scam-layout { grid-template-columns: minmax(0, 1fr) 17rem; } }
.scam-number:hover, .scam-number[aria-pressed="true"] { background: var(--mantine-color-default-hover); }`}</style>
    </Stack>
  );
}

function FlaggedCall({ r, onNumber }: { r: ScamCall; onNumber: (n: string) => void }) {
  const Icon = r.direction === 'outbound' ? IconPhoneOutgoing : IconPhoneIncoming;
  const who = r.number || r.name || S.unknownNumber;
  return (
    <Paper withBorder radius="md" p="sm" data-testid="scam-call">
      <Group justify="space-between" gap="xs" mb={6} align="start">
        <Group gap="xs" wrap="nowrap" miw={0}>
          <Icon size={18} stroke={1.6} aria-hidden />
          <Text fw={600} size="sm" truncate>
            {r.direction === 'outbound' ? 'To' : 'From'}{' '}
            {r.number ? (
              <Anchor component="button" type="button" fw={600} size="sm" onClick={() => onNumber(r.number)}>
                {who}
              </Anchor>
            ) : (
              who
            )}
            {r.name && r.number ? ` · ${r.name}` : ''}
          </Text>
        </Group>
        <Group gap={6}>
          <Badge color="red" variant="light" size="sm" data-testid="scam-kind-badge">
            {kindLabel(r.kind)}
          </Badge>
          <Badge color="gray" variant="outline" size="sm" title="Confidence">
            {Math.round(r.confidence * 100)}%
          </Badge>
        </Group>
      </Group>
      <Text size="xs" c="dimmed">
        {formatDateTime(r.started_at)} · {callDuration(r.duration)}
        {r.assignee ? ` · ${r.assignee.split(',').join(', ')}` : ''}
        {r.number_flags > 1 ? ` · ${S.flaggedCalls(r.number_flags)} from this number` : ''}
      </Text>
      {r.excerpt ? (
        <Blockquote color="red" p="xs" mt="xs" fz="sm" data-testid="scam-excerpt" style={{ overflowWrap: 'anywhere' }}>
          {r.excerpt}
        </Blockquote>
      ) : (
        <Text size="xs" c="dimmed" mt="xs">
          {S.noTranscript}
        </Text>
      )}
      {r.cues.length > 0 && (
        <Box component="ul" mt={6} mb={0} pl="md" aria-label={AI_GUIDANCE_STRINGS.why}>
          {r.cues.map((c) => (
            <Text component="li" size="xs" key={`${c.cue}|${c.means}`}>
              <b>“{c.cue}”</b> {c.means}
            </Text>
          ))}
        </Box>
      )}
      <Text size="xs" mt={6}>
        <Link to={`/call/${r.ticket_id}`}>Call details</Link>
      </Text>
    </Paper>
  );
}
