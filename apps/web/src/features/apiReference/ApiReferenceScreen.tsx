import { Accordion, Badge, Code, Group, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, HttpError } from '../../lib/http';

/** The parts of an OpenAPI 3 document this page reads (what @fastify/swagger writes from the routes' schemas). */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  nullable?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  description?: string;
}
interface Operation {
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}
interface OpenApi {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
}

export const API_REFERENCE_STRINGS = {
  title: 'API reference',
  intro:
    'Every route of this server with what it takes and answers, read from the same schemas that check each request. Call it with an API token (Settings → API and webhooks) as `Authorization: Bearer <token>`.',
  search: 'Search routes',
  none: 'No route matches.',
  forbidden: 'Only admins can read the API reference on this installation.',
  failed: 'The API reference could not be loaded.',
  parameters: 'Parameters',
  body: 'Body',
  answer: 'Answer',
  noBody: 'No body.',
  raw: 'The document itself: /api/docs (OpenAPI 3).',
  count: (n: number) => (n === 1 ? '1 route' : `${n} routes`),
} as const;
const T = API_REFERENCE_STRINGS;

const METHOD_COLOR: Record<string, string> = {
  get: 'blue',
  post: 'teal',
  put: 'orange',
  patch: 'grape',
  delete: 'red',
};

/** A schema's type in a few words: "string (1..200)", "integer[]", "one of H, M, L". */
function typeOf(s: Schema | undefined): string {
  if (!s) return 'any';
  if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return alt.map(typeOf).join(' or ');
  const t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'object');
  if (t === 'array') return `${typeOf(s.items)}[]`;
  const range =
    s.minLength !== undefined || s.maxLength !== undefined
      ? ` (${s.minLength ?? 0}..${s.maxLength ?? '∞'} chars)`
      : s.minimum !== undefined || s.maximum !== undefined
        ? ` (${s.minimum ?? '-∞'}..${s.maximum !== undefined && s.maximum < 1e15 ? s.maximum : '∞'})`
        : '';
  return `${t}${s.nullable ? ' or null' : ''}${range}`;
}

/** The fields of an object schema, nested ones with a dotted path (two levels deep; deeper is the raw JSON). */
function fields(s: Schema | undefined, prefix = '', depth = 0): { name: string; type: string; required: boolean }[] {
  if (!s?.properties) return [];
  return Object.entries(s.properties).flatMap(([k, v]) => {
    const name = `${prefix}${k}`;
    const row = { name, type: typeOf(v), required: s.required?.includes(k) ?? false };
    const inner = v.type === 'array' ? v.items : v;
    return depth < 2 && inner?.properties
      ? [row, ...fields(inner, `${name}${v.type === 'array' ? '[].' : '.'}`, depth + 1)]
      : [row];
  });
}

function FieldTable({ rows, testId }: { rows: { name: string; type: string; required: boolean }[]; testId: string }) {
  return (
    <Table.ScrollContainer minWidth={360}>
      <Table fz="xs" withTableBorder data-testid={testId}>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.name}>
              <Table.Td>
                <Code>{r.name}</Code>
                {r.required && (
                  <Text span c="red.8" fz="xs" ml={4}>
                    required
                  </Text>
                )}
              </Table.Td>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{r.type}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function OperationDetail({ op }: { op: Operation }) {
  const params = (op.parameters ?? []).map((p) => ({
    name: `${p.name} (${p.in})`,
    type: typeOf(p.schema),
    required: p.required ?? false,
  }));
  const body = op.requestBody?.content?.['application/json']?.schema;
  const ok = op.responses?.['200']?.content?.['application/json']?.schema;
  return (
    <Stack gap="xs">
      {(op.summary || op.description) && <Text size="sm">{op.summary ?? op.description}</Text>}
      {params.length > 0 && (
        <>
          <Text fw={600} size="sm">
            {T.parameters}
          </Text>
          <FieldTable rows={params} testId="api-params" />
        </>
      )}
      <Text fw={600} size="sm">
        {T.body}
      </Text>
      {body ? (
        <FieldTable rows={fields(body)} testId="api-body" />
      ) : (
        <Text size="xs" c="dimmed">
          {T.noBody}
        </Text>
      )}
      {ok && (
        <>
          <Text fw={600} size="sm">
            {T.answer}
          </Text>
          <FieldTable rows={fields(ok)} testId="api-answer" />
        </>
      )}
    </Stack>
  );
}

/** The OpenAPI document (`/api/docs`) rendered: routes grouped by their first part, searchable. */
export function ApiReferenceScreen() {
  const doc = useQuery({ queryKey: ['api-docs'], queryFn: () => api<OpenApi>('GET', '/api/docs'), retry: false });
  const [text, setText] = useState('');
  const [q] = useDebouncedValue(text.trim().toLowerCase(), 200);
  const groups = useMemo(() => {
    const ops = Object.entries(doc.data?.paths ?? {}).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    const shown = q ? ops.filter((o) => `${o.method} ${o.path} ${o.op.summary ?? ''}`.toLowerCase().includes(q)) : ops;
    const by = new Map<string, typeof ops>();
    for (const o of shown) {
      const parts = o.path.split('/').filter(Boolean);
      const key = parts[0] === 'api' ? (parts[1] ?? 'api') : (parts[0] ?? '/');
      by.set(key, [...(by.get(key) ?? []), o]);
    }
    return [...by.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  }, [doc.data, q]);
  const total = groups.reduce((n, [, ops]) => n + ops.length, 0);

  return (
    <Stack gap="md" data-testid="api-reference">
      <Title order={1} size="h2">
        {T.title}
      </Title>
      <Text size="sm" c="dimmed" maw={760}>
        {T.intro}
      </Text>
      {doc.isPending && <Loader size="sm" aria-label="Loading" />}
      {doc.isError && (
        <Text c="red" role="alert">
          {doc.error instanceof HttpError && doc.error.status === 403 ? T.forbidden : T.failed}
        </Text>
      )}
      {doc.data && (
        <>
          <Group gap="sm" align="flex-end">
            <TextInput
              label={T.search}
              leftSection={<IconSearch size={14} />}
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
              w={320}
              maw="100%"
              data-testid="api-search"
            />
            <Text size="sm" c="dimmed" data-testid="api-count">
              {T.count(total)}
            </Text>
          </Group>
          {total === 0 && <Text c="dimmed">{T.none}</Text>}
          {groups.map(([group, ops]) => (
            <Stack key={group} gap={4}>
              <Title order={2} size="h4">
                {group}
              </Title>
              <Accordion variant="separated" chevronPosition="left" multiple>
                {ops.map(({ path, method, op }) => (
                  <Accordion.Item
                    key={`${method} ${path}`}
                    // The value names the panel's element ids: letters, digits and dashes only.
                    value={`${method}-${path}`.replace(/[^A-Za-z0-9_-]/g, '_')}
                    data-testid="api-route"
                  >
                    <Accordion.Control>
                      <Group gap="xs" wrap="nowrap">
                        <Badge
                          w={64}
                          color={METHOD_COLOR[method] ?? 'gray'}
                          variant="light"
                          c="var(--mantine-color-text)"
                        >
                          {method.toUpperCase()}
                        </Badge>
                        <Code style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>{path}</Code>
                      </Group>
                    </Accordion.Control>
                    <Accordion.Panel>
                      <OperationDetail op={op} />
                    </Accordion.Panel>
                  </Accordion.Item>
                ))}
              </Accordion>
            </Stack>
          ))}
          <Text size="xs" c="dimmed">
            {T.raw}
          </Text>
        </>
      )}
    </Stack>
  );
}
