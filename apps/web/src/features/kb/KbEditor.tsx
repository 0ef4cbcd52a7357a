import {
  Badge,
  Button,
  Card,
  Grid,
  Group,
  Loader,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { KB_LANG_NAMES, KB_LANGS, KB_TYPES, type KbLang, type KbType, KB_STRINGS as S } from '@parley/contracts';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { kbKeys } from '../../lib/queryKeys';
import { Snippet } from '../../ui/Snippet';
import { ArticleForm } from './ArticleForm';
import { kbApi } from './api';

/**
 * `/kb`: the articles of the account with search, and the editor: Markdown with a preview and images,
 * questions, save as draft; admins and supervisors publish, unpublish and delete.
 */
export function KbEditor() {
  const [type, setType] = useState<KbType>('kb');
  const [lang, setLang] = useState<KbLang>('en');
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [selected, setSelected] = useState<number | 'new' | null>(null);
  const list = useQuery({ queryKey: kbKeys.list({ type, lang, q }), queryFn: () => kbApi.list({ type, lang, q }) });

  return (
    <Stack p="md" gap="md" data-testid="kb-editor">
      <Group justify="space-between" wrap="wrap">
        <Title order={1} size="h2">
          {S.editorTitle}
        </Title>
        <Group gap="xs" wrap="wrap">
          <SegmentedControl
            aria-label="Collection"
            value={type}
            data={KB_TYPES.map((t) => ({ value: t, label: t === 'manual' ? S.manual : S.kb }))}
            onChange={(t) => {
              setType(t as KbType);
              setSelected(null);
            }}
          />
          <Select
            aria-label="Language"
            w={160}
            allowDeselect={false}
            value={lang}
            data={KB_LANGS.map((l) => ({ value: l, label: KB_LANG_NAMES[l] }))}
            onChange={(l) => {
              if (l) setLang(l as KbLang);
              setSelected(null);
            }}
          />
          <Button leftSection={<IconPlus size={16} />} onClick={() => setSelected('new')}>
            {S.newArticle}
          </Button>
        </Group>
      </Group>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Card withBorder padding="sm">
            <form
              onSubmit={(e) => {
                e.preventDefault();
                setQ(text.trim());
              }}
            >
              <TextInput
                aria-label={S.search}
                placeholder={S.search}
                leftSection={<IconSearch size={16} />}
                value={text}
                onChange={(e) => {
                  setText(e.currentTarget.value);
                  if (e.currentTarget.value === '') setQ('');
                }}
                mb="sm"
              />
            </form>
            {list.isPending ? (
              <Loader size="sm" aria-label="Loading" />
            ) : (list.data ?? []).length === 0 ? (
              <Text c="dimmed" size="sm">
                {q ? S.noResults : S.noArticles}
              </Text>
            ) : (
              <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                {list.data?.map((a) => (
                  <li key={a.id}>
                    <UnstyledButton
                      onClick={() => setSelected(a.id)}
                      p="xs"
                      w="100%"
                      aria-current={selected === a.id ? 'true' : undefined}
                      style={{
                        borderRadius: 'var(--mantine-radius-sm)',
                        background: selected === a.id ? 'var(--mantine-color-default-hover)' : undefined,
                      }}
                    >
                      <Group justify="space-between" wrap="nowrap" gap="xs">
                        <Text fw={600} size="sm" lineClamp={1}>
                          {a.title}
                        </Text>
                        <Badge size="sm" variant="dot" color={a.status === 'published' ? 'green' : 'gray'}>
                          {a.status === 'published' ? S.live : S.draft}
                        </Badge>
                      </Group>
                      {q && <Snippet html={a.snippet} lines={2} />}
                    </UnstyledButton>
                  </li>
                ))}
              </Stack>
            )}
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          {selected === null ? (
            <Text c="dimmed">{(list.data ?? []).length === 0 ? S.noArticles : S.search}</Text>
          ) : (
            <ArticleForm
              key={`${selected}-${type}-${lang}`}
              id={selected === 'new' ? null : selected}
              type={type}
              lang={lang}
              onSaved={(id) => setSelected(id)}
              onDeleted={() => setSelected(null)}
            />
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
