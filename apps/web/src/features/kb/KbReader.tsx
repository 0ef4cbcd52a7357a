import {
  Accordion,
  Alert,
  Anchor,
  Button,
  Card,
  Group,
  Loader,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import {
  KB_LANG_NAMES,
  KB_LANGS,
  KB_TYPES,
  type KbArticleItem,
  type KbCategory,
  type KbLang,
  type KbType,
  KB_STRINGS as S,
} from '@parley/contracts';
import { IconArrowLeft, IconBook, IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { formatDay } from '../../lib/dates';
import { errorText } from '../../lib/http';
import { kbKeys } from '../../lib/queryKeys';
import { EmptyScreen } from '../../ui/EmptyScreen';
import { Snippet } from '../../ui/Snippet';
import { kbApi } from './api';
import { Markdown } from './Markdown';

interface Where {
  token: string;
  type: KbType;
  lang: KbLang;
  /** Keeps `?site=` in the reader's own links when the page was opened with it. */
  siteQuery: string;
}

const collectionPath = (w: Pick<Where, 'type' | 'lang' | 'siteQuery'>) => `/support/${w.type}/${w.lang}${w.siteQuery}`;

/**
 * SHELL-09, SHELL-10: the public reading pages of one account's knowledge base or support manual: the
 * collection (categories and their published articles, with search), an article with its questions, and one
 * question opened (`/support/:type/:lang/:id/:question`).
 */
export function KbReader({ where, id, question }: { where: Where; id?: string; question?: string }) {
  const navigate = useNavigate();
  const heading = where.type === 'manual' ? S.manual : S.kb;
  return (
    <Stack gap="md" data-testid="kb-reader">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Group gap="xs">
          <IconBook size={26} stroke={1.5} aria-hidden />
          <Title order={1} size="h2">
            {heading}
          </Title>
        </Group>
        <Group gap="xs" wrap="wrap">
          <SegmentedControl
            aria-label="Collection"
            value={where.type}
            data={KB_TYPES.map((t) => ({ value: t, label: t === 'manual' ? S.manual : S.kb }))}
            onChange={(t) => navigate(collectionPath({ ...where, type: t as KbType }))}
          />
          <Select
            aria-label="Language"
            w={160}
            allowDeselect={false}
            value={where.lang}
            data={KB_LANGS.map((l) => ({ value: l, label: KB_LANG_NAMES[l] }))}
            onChange={(l) => l && navigate(collectionPath({ ...where, lang: l as KbLang }))}
          />
        </Group>
      </Group>
      {id ? <ArticleView where={where} id={id} question={question} /> : <CollectionView where={where} />}
    </Stack>
  );
}

function CollectionView({ where }: { where: Where }) {
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const index = useQuery({
    queryKey: kbKeys.publicIndex(where.token, where.type, where.lang, q),
    queryFn: () => kbApi.publicIndex(where.token, where.type, where.lang, q),
  });
  if (index.isError) return <Alert color="red">{errorText(index.error)}</Alert>;
  const articles = index.data?.articles ?? [];
  const groups: { category: KbCategory | null; articles: KbArticleItem[] }[] = [
    ...(index.data?.categories ?? []).map((c) => ({
      category: c,
      articles: articles.filter((a) => a.category_id === c.id),
    })),
    { category: null, articles: articles.filter((a) => !index.data?.categories.some((c) => c.id === a.category_id)) },
  ].filter((g) => g.articles.length > 0);
  return (
    <Stack gap="md">
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
          maw={520}
        />
      </form>
      {index.isPending ? (
        <Loader aria-label="Loading" />
      ) : groups.length === 0 ? (
        <Text c="dimmed">{q ? S.noResults : S.emptyPublic}</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
          {groups.map((g) => (
            <Card key={g.category?.id ?? 0} withBorder padding="md">
              <Title order={2} size="h4" mb="xs">
                {g.category?.name ?? S.allCategories}
              </Title>
              <Stack gap="sm">
                {g.articles.map((a) => (
                  <div key={a.id}>
                    <Anchor
                      component={Link}
                      to={`/support/${a.type}/${a.lang}/${a.slug ?? a.id}${where.siteQuery}`}
                      fw={600}
                    >
                      {a.title}
                    </Anchor>
                    {a.snippet && <Snippet html={a.snippet} />}
                  </div>
                ))}
              </Stack>
            </Card>
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

function ArticleView({ where, id, question }: { where: Where; id: string; question?: string }) {
  const navigate = useNavigate();
  const article = useQuery({
    queryKey: kbKeys.publicArticle(where.token, where.type, where.lang, id),
    queryFn: () => kbApi.publicArticle(where.token, where.type, where.lang, id),
    retry: false,
  });
  const [open, setOpen] = useState<string | null>(question ?? null);
  useEffect(() => {
    setOpen(question ?? null);
    if (question && article.data)
      document.getElementById(`kb-question-${question}`)?.scrollIntoView({ block: 'start' });
  }, [question, article.data]);
  const back = (
    <Button
      component={Link}
      to={collectionPath(where)}
      variant="subtle"
      leftSection={<IconArrowLeft size={16} />}
      w="fit-content"
      px={0}
    >
      {S.back}
    </Button>
  );
  if (article.isPending) return <Loader aria-label="Loading" />;
  if (article.isError)
    return (
      <Stack>
        {back}
        <Alert color="red">{errorText(article.error)}</Alert>
      </Stack>
    );
  const a = article.data;
  const base = `/support/${a.type}/${a.lang}/${a.slug ?? a.id}`;
  return (
    <Stack gap="sm" maw={820} component="article">
      {back}
      <Title order={1} size="h2">
        {a.title}
      </Title>
      <Text size="sm" c="dimmed">
        {formatDay(a.updated_at)}
      </Text>
      <Markdown source={a.body} filesBase={`/api/public/kb/${encodeURIComponent(where.token)}/files/`} />
      {a.questions.length > 0 && (
        <>
          <Title order={2} size="h4" mt="md">
            {S.questions}
          </Title>
          <Accordion
            value={open}
            onChange={(v) => {
              setOpen(v);
              // The open question is in the address (`/:id/:question`), so it can be shared.
              navigate(`${base}${v ? `/${v}` : ''}${where.siteQuery}`, { replace: true });
            }}
            variant="separated"
          >
            {a.questions.map((x) => (
              <Accordion.Item key={x.id} value={String(x.id)} id={`kb-question-${x.id}`}>
                <Accordion.Control>{x.question}</Accordion.Control>
                <Accordion.Panel>
                  <Markdown source={x.answer} filesBase={`/api/public/kb/${encodeURIComponent(where.token)}/files/`} />
                </Accordion.Panel>
              </Accordion.Item>
            ))}
          </Accordion>
        </>
      )}
    </Stack>
  );
}

/** A reading page opened without `?site=` while signed out: it cannot know whose articles to show. */
export function NoSite({ type }: { type: KbType }) {
  return <EmptyScreen icon={IconBook} title={type === 'manual' ? S.manual : S.kb} text={S.noSite} />;
}
