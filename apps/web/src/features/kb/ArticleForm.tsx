import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  FileButton,
  Group,
  Loader,
  Select,
  Stack,
  Tabs,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import {
  canPublishKb,
  type KbArticle,
  type KbLang,
  type KbType,
  kbArticlePath,
  KB_STRINGS as S,
} from '@parley/contracts';
import { IconPhoto, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { formatDateTime } from '../../lib/dates';
import { kbKeys } from '../../lib/queryKeys';
import { useMe } from '../../lib/session';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { kbApi } from './api';
import { Markdown } from './Markdown';

interface Draft {
  type: KbType;
  lang: KbLang;
  category_id: number | null;
  slug: string;
  title: string;
  body: string;
  questions: { id?: number; question: string; answer: string }[];
}
const blank = (type: KbType, lang: KbLang): Draft => ({
  type,
  lang,
  category_id: null,
  slug: '',
  title: '',
  body: '',
  questions: [],
});
const draftOf = (a: KbArticle): Draft => ({
  type: a.type,
  lang: a.lang,
  category_id: a.category_id,
  slug: a.slug ?? '',
  title: a.title,
  body: a.body,
  questions: a.questions.map((q) => ({ ...q })),
});

/**
 * One article in the editor: title, slug, category, Markdown with Write/Preview and images, questions; Save,
 * and for admins and supervisors Publish, Unpublish and Delete.
 */
export function ArticleForm({
  id,
  type,
  lang,
  onSaved,
  onDeleted,
}: {
  id: number | null;
  type: KbType;
  lang: KbLang;
  onSaved(id: number): void;
  onDeleted(): void;
}) {
  const me = useMe();
  const publisher = canPublishKb(me.type);
  const qc = useQueryClient();
  const article = useQuery({
    queryKey: kbKeys.article(id ?? 0),
    queryFn: () => kbApi.article(id ?? 0),
    enabled: id !== null,
  });
  const site = useQuery({ queryKey: kbKeys.site, queryFn: kbApi.site });
  const [draft, setDraft] = useState<Draft>(blank(type, lang));
  useEffect(() => {
    if (article.data) setDraft(draftOf(article.data));
  }, [article.data]);
  const categories = useQuery({
    queryKey: kbKeys.categories(draft.type, draft.lang),
    queryFn: () => kbApi.categories(draft.type, draft.lang),
  });
  const [newCategory, setNewCategory] = useState('');
  const write = useWrite({ invalidate: kbKeys.all });
  const [tab, setTab] = useState<string | null>('write');
  const body = useRef<HTMLTextAreaElement>(null);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));

  if (id !== null && article.isPending) return <Loader aria-label="Loading" />;
  const current = id !== null ? article.data : undefined;
  const input = () => ({ ...draft, slug: draft.slug.trim() || null });
  const save = async () => {
    const saved = current ? await kbApi.update(current.id, input()) : await kbApi.create(input());
    qc.setQueryData(kbKeys.article(saved.id), saved);
    return saved;
  };
  const run = (what: () => Promise<KbArticle | undefined>, message: string) =>
    write.run(async () => {
      const a = await what();
      toast({ message });
      if (a) onSaved(a.id);
    });

  const insertImage = async (file: File | null) => {
    if (!file) return;
    await write.run(async () => {
      const img = await kbApi.uploadImage(file);
      const el = body.current;
      const at = el?.selectionStart ?? draft.body.length;
      const md = `![${img.name.replace(/[[\]]/g, '')}](${img.url})`;
      set({ body: `${draft.body.slice(0, at)}${md}${draft.body.slice(at)}` });
    });
  };

  return (
    <Card withBorder padding="md" component="section" aria-label={current ? current.title : S.newArticle}>
      <Stack gap="sm">
        {current && (
          <Group justify="space-between" wrap="wrap">
            <Group gap="xs">
              <Badge variant="dot" color={current.status === 'published' ? 'green' : 'gray'}>
                {current.status === 'published' ? S.live : S.draft}
              </Badge>
              <Text size="sm" c="dimmed">
                {S.updated(formatDateTime(current.updated_at), current.updated_by)}
              </Text>
            </Group>
            {current.status === 'published' && site.data && (
              <Anchor href={kbArticlePath(current, site.data)} target="_blank" size="sm" data-testid="kb-public-link">
                {S.viewPublic}
              </Anchor>
            )}
          </Group>
        )}
        <TextInput
          label={S.title}
          required
          value={draft.title}
          onChange={(e) => set({ title: e.currentTarget.value })}
        />
        <Group grow align="flex-end" wrap="wrap">
          <TextInput label={S.slug} value={draft.slug} onChange={(e) => set({ slug: e.currentTarget.value })} />
          <Select
            label={S.category}
            value={draft.category_id === null ? '' : String(draft.category_id)}
            data={[
              { value: '', label: S.noCategory },
              ...(categories.data ?? []).map((c) => ({ value: String(c.id), label: c.name })),
            ]}
            allowDeselect={false}
            onChange={(v) => set({ category_id: v ? Number(v) : null })}
          />
        </Group>
        {publisher && (
          <Group gap="xs" align="flex-end">
            <TextInput
              label={S.newCategory}
              placeholder={S.categoryName}
              value={newCategory}
              onChange={(e) => setNewCategory(e.currentTarget.value)}
              style={{ flex: 1 }}
            />
            <Button
              variant="default"
              disabled={newCategory.trim() === ''}
              onClick={() =>
                write.run(async () => {
                  const c = await kbApi.createCategory({ type: draft.type, lang: draft.lang, name: newCategory });
                  setNewCategory('');
                  set({ category_id: c.id });
                })
              }
            >
              {S.addCategory}
            </Button>
          </Group>
        )}
        <Tabs value={tab} onChange={setTab}>
          <Group justify="space-between" wrap="nowrap">
            <Tabs.List>
              <Tabs.Tab value="write">{S.write}</Tabs.Tab>
              <Tabs.Tab value="preview">{S.preview}</Tabs.Tab>
            </Tabs.List>
            <FileButton onChange={(f) => void insertImage(f)} accept="image/png,image/jpeg,image/gif,image/webp">
              {(props) => (
                <Button {...props} variant="subtle" size="xs" leftSection={<IconPhoto size={16} />}>
                  {S.addImage}
                </Button>
              )}
            </FileButton>
          </Group>
          <Tabs.Panel value="write" pt="xs">
            <Textarea
              ref={body}
              aria-label={S.body}
              placeholder={S.body}
              autosize
              minRows={10}
              maxRows={30}
              value={draft.body}
              onChange={(e) => set({ body: e.currentTarget.value })}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            />
          </Tabs.Panel>
          <Tabs.Panel value="preview" pt="xs" data-testid="kb-preview">
            <Markdown source={draft.body} />
          </Tabs.Panel>
        </Tabs>
        <Title order={2} size="h5">
          {S.questions}
        </Title>
        {draft.questions.map((x, i) => (
          <Card key={x.id ?? `new-${i}`} withBorder padding="xs">
            <Group align="flex-start" wrap="nowrap" gap="xs">
              <Stack gap={4} style={{ flex: 1 }}>
                <TextInput
                  aria-label={`${S.question} ${i + 1}`}
                  placeholder={S.question}
                  value={x.question}
                  onChange={(e) => {
                    const question = e.currentTarget.value;
                    set({ questions: draft.questions.map((y, j) => (j === i ? { ...y, question } : y)) });
                  }}
                />
                <Textarea
                  aria-label={`${S.answer} ${i + 1}`}
                  placeholder={S.answer}
                  autosize
                  minRows={2}
                  value={x.answer}
                  onChange={(e) => {
                    const answer = e.currentTarget.value;
                    set({ questions: draft.questions.map((y, j) => (j === i ? { ...y, answer } : y)) });
                  }}
                />
              </Stack>
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`${S.remove} ${i + 1}`}
                onClick={() => set({ questions: draft.questions.filter((_, j) => j !== i) })}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
          </Card>
        ))}
        <Button
          variant="subtle"
          w="fit-content"
          leftSection={<IconPlus size={16} />}
          onClick={() => set({ questions: [...draft.questions, { question: '', answer: '' }] })}
        >
          {S.addQuestion}
        </Button>
        {write.error && <Alert color="red">{write.error}</Alert>}
        <Group gap="xs" wrap="wrap">
          <Button loading={write.busy} onClick={() => run(save, S.saved)}>
            {current?.status === 'published' ? S.save : S.saveDraft}
          </Button>
          {publisher && current?.status !== 'published' && (
            <Button
              color="green"
              loading={write.busy}
              onClick={() => run(async () => kbApi.setPublished((await save()).id, true), S.published)}
            >
              {S.publish}
            </Button>
          )}
          {publisher && current?.status === 'published' && (
            <Button
              variant="default"
              loading={write.busy}
              onClick={() => run(() => kbApi.setPublished(current.id, false), S.unpublished)}
            >
              {S.unpublish}
            </Button>
          )}
          {publisher && current && (
            <Button
              variant="subtle"
              color="red"
              loading={write.busy}
              onClick={() =>
                write.run(async () => {
                  await kbApi.remove(current.id);
                  toast({ message: S.deleted });
                  onDeleted();
                })
              }
            >
              {S.delete}
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
