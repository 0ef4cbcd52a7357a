import { z } from 'zod';

/**
 * The knowledge base and the support manual (SHELL-09, SHELL-10, SHELL-31; see docs/kb.md): categories,
 * articles (Markdown) and the questions of an article, each in one language, in one of two collections.
 */
export const KB_TYPES = ['kb', 'manual'] as const;
export type KbType = (typeof KB_TYPES)[number];
/** The languages an article may be written in (the product's own: English, Malay, Chinese). */
export const KB_LANGS = ['en', 'ms', 'zh'] as const;
export type KbLang = (typeof KB_LANGS)[number];
export const KB_LANG_NAMES: Record<KbLang, string> = { en: 'English', ms: 'Bahasa Melayu', zh: '中文' };
export const KB_STATUSES = ['draft', 'published'] as const;
export type KbStatus = (typeof KB_STATUSES)[number];

export const KB_TITLE_MAX = 200;
export const KB_BODY_MAX = 50_000;
export const KB_QUESTIONS_MAX = 50;
export const KB_SEARCH_MAX = 200;
/** The public token: random base64url. */
export const KB_TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

export const KB_STRINGS = {
  kb: 'Knowledgebase',
  manual: 'Support',
  articleNotFound: 'Article not found.',
  categoryNotFound: 'Category not found.',
  categoryNotEmpty: 'This category still has articles. Move or delete them first.',
  categoryOtherCollection: 'The category belongs to another collection or language.',
  siteNotFound: 'This knowledge base link is not valid.',
  publishNotAllowed: 'Only admins and supervisors can publish, unpublish or delete articles.',
  categoryNotAllowed: 'Only admins and supervisors can manage categories.',
  titleRequired: 'A title is required.',
  titleTooLong: `The title is too long (${KB_TITLE_MAX} characters at most).`,
  bodyTooLong: `The article is too long (${KB_BODY_MAX.toLocaleString('en')} characters at most).`,
  slugPattern: 'A slug is lower-case letters, digits and - only.',
  slugTaken: 'Another article already uses this slug.',
  searchTooLong: `Search text is too long (${KB_SEARCH_MAX} characters at most).`,
  /** Web. */
  editorTitle: 'Knowledge base',
  newArticle: 'New article',
  search: 'Search articles',
  noArticles: 'No articles yet.',
  noResults: 'No article matches.',
  title: 'Title',
  slug: 'Slug (optional)',
  category: 'Category',
  noCategory: 'No category',
  body: 'Article (Markdown)',
  write: 'Write',
  preview: 'Preview',
  addImage: 'Add image',
  questions: 'Questions',
  addQuestion: 'Add question',
  question: 'Question',
  answer: 'Answer',
  remove: 'Remove',
  saveDraft: 'Save draft',
  save: 'Save changes',
  publish: 'Publish',
  unpublish: 'Unpublish',
  delete: 'Delete',
  saved: 'Draft saved.',
  published: 'Article published.',
  unpublished: 'Article unpublished.',
  deleted: 'Article deleted.',
  draft: 'Draft',
  live: 'Published',
  viewPublic: 'View public page',
  publicLink: 'Public link',
  newCategory: 'New category',
  categoryName: 'Category name',
  addCategory: 'Add',
  updated: (when: string, by: string) => `Updated ${when} by ${by}`,
  noSite: 'Open this page from a link your support team shared: it names whose articles to show.',
  emptyPublic: 'Nothing has been published here yet.',
  back: 'All articles',
  allCategories: 'Other articles',
  editArticles: 'Edit articles',
  /** The conversation's popup. */
  popupTitle: 'Knowledge base',
  popupButton: 'Knowledge base',
  popupSearch: 'Search published articles',
  popupEmpty: 'No published article matches.',
  insertText: 'Insert answer',
  insertLink: 'Insert link',
} as const;

const lang = z.enum(KB_LANGS, { message: `Unknown language: use one of ${KB_LANGS.join(', ')}.` });
const type = z.enum(KB_TYPES, { message: `Unknown collection: use kb or manual.` });
const id = z.coerce.number().int().positive();

export const KbCollectionParams = z.object({ type, lang });
export type KbCollectionParams = z.infer<typeof KbCollectionParams>;
export const KbIdParams = z.object({ id });
/** A public article: by id or by slug. */
export const KbPublicParams = z.object({
  token: z.string().regex(KB_TOKEN_PATTERN, KB_STRINGS.siteNotFound),
  type,
  lang,
  id: z.string().min(1).max(80),
});
export const KbSiteParams = z.object({ token: z.string().regex(KB_TOKEN_PATTERN, KB_STRINGS.siteNotFound) });
export const KbPublicListParams = KbSiteParams.extend({ type, lang });

export const KbQuestion = z.object({ id: z.number(), question: z.string(), answer: z.string() });
export type KbQuestion = z.infer<typeof KbQuestion>;

export const KbCategory = z.object({
  id: z.number(),
  type: z.enum(KB_TYPES),
  lang: z.enum(KB_LANGS),
  name: z.string(),
  position: z.number(),
});
export type KbCategory = z.infer<typeof KbCategory>;

/** An article as the editor and the public pages read it. */
export const KbArticle = z.object({
  id: z.number(),
  type: z.enum(KB_TYPES),
  lang: z.enum(KB_LANGS),
  category_id: z.number().nullable(),
  slug: z.string().nullable(),
  title: z.string(),
  body: z.string(),
  status: z.enum(KB_STATUSES),
  questions: z.array(KbQuestion),
  updated_at: z.number(),
  updated_by: z.string(),
  published_at: z.number().nullable(),
});
export type KbArticle = z.infer<typeof KbArticle>;

/** A row of a list or a search: no body; `snippet` is escaped HTML with only `<mark>` added. */
export const KbArticleItem = z.object({
  id: z.number(),
  type: z.enum(KB_TYPES),
  lang: z.enum(KB_LANGS),
  category_id: z.number().nullable(),
  slug: z.string().nullable(),
  title: z.string(),
  status: z.enum(KB_STATUSES),
  updated_at: z.number(),
  snippet: z.string(),
});
export type KbArticleItem = z.infer<typeof KbArticleItem>;

const questionInput = z.object({
  id: z.number().int().positive().optional(),
  question: z.string().trim().min(1, 'A question is required.').max(KB_TITLE_MAX, KB_STRINGS.titleTooLong),
  answer: z.string().trim().max(5000),
});
export const KbArticleInput = z.object({
  type,
  lang,
  category_id: z.number().int().positive().nullable().default(null),
  slug: z
    .string()
    .trim()
    .max(80)
    .regex(/^([a-z0-9]+(-[a-z0-9]+)*)?$/, KB_STRINGS.slugPattern)
    .transform((s) => (s === '' ? null : s))
    .nullable()
    .default(null),
  title: z.string().trim().min(1, KB_STRINGS.titleRequired).max(KB_TITLE_MAX, KB_STRINGS.titleTooLong),
  body: z.string().max(KB_BODY_MAX, KB_STRINGS.bodyTooLong).default(''),
  questions: z.array(questionInput).max(KB_QUESTIONS_MAX).default([]),
});
export type KbArticleInput = z.input<typeof KbArticleInput>;

export const KbCategoryInput = z.object({
  type,
  lang,
  name: z.string().trim().min(1, 'A name is required.').max(100),
  position: z.number().int().min(0).max(10_000).default(0),
});
export type KbCategoryInput = z.input<typeof KbCategoryInput>;

export const KbListQuery = z.object({
  type: type.optional(),
  lang: lang.optional(),
  status: z.enum(KB_STATUSES).optional(),
  q: z.string().max(KB_SEARCH_MAX, KB_STRINGS.searchTooLong).optional(),
});
export type KbListQuery = z.infer<typeof KbListQuery>;
export const KbPublicQuery = z.object({ q: z.string().max(KB_SEARCH_MAX, KB_STRINGS.searchTooLong).optional() });

/** The popup's search: published articles with their answer text and public link. */
export const KbSearchQuery = z.object({
  q: z.string().max(KB_SEARCH_MAX, KB_STRINGS.searchTooLong).default(''),
  lang: lang.optional(),
});
export const KbSearchHit = KbArticleItem.extend({ text: z.string(), url: z.string() });
export type KbSearchHit = z.infer<typeof KbSearchHit>;

export const KbArticleAnswer = z.object({ result: z.literal('success'), data: KbArticle });
export const KbArticleListAnswer = z.object({ result: z.literal('success'), data: z.array(KbArticleItem) });
export const KbCategoryAnswer = z.object({ result: z.literal('success'), data: KbCategory });
export const KbCategoryListAnswer = z.object({ result: z.literal('success'), data: z.array(KbCategory) });
export const KbSearchAnswer = z.object({ result: z.literal('success'), data: z.array(KbSearchHit) });
/** The account's public token: the part of a public URL that names whose articles to show. */
export const KbSiteAnswer = z.object({ result: z.literal('success'), token: z.string() });
export const KbPublicIndexAnswer = z.object({
  result: z.literal('success'),
  categories: z.array(KbCategory),
  articles: z.array(KbArticleItem),
});
export type KbPublicIndexAnswer = z.infer<typeof KbPublicIndexAnswer>;

/** The public path of an article (the web's route), the account named by its token. */
export const kbArticlePath = (a: { type: KbType; lang: KbLang; id: number; slug: string | null }, token: string) =>
  `/support/${a.type}/${a.lang}/${a.slug ?? a.id}?site=${encodeURIComponent(token)}`;
/** Public path of a collection. */
export const kbCollectionPath = (type: KbType, lang: KbLang, token: string) =>
  `/support/${type}/${lang}?site=${encodeURIComponent(token)}`;
/** Who may publish, unpublish and delete articles, and manage categories. */
export const canPublishKb = (userType: string) => userType === 'admin' || userType === 'supervisor';
