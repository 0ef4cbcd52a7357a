import type {
  KbArticle,
  KbArticleInput,
  KbArticleItem,
  KbCategory,
  KbCategoryInput,
  KbLang,
  KbListQuery,
  KbPublicIndexAnswer,
  KbSearchHit,
  KbType,
  UploadAnswer,
} from '@parley/contracts';
import { api, HttpError } from '../../lib/http';

const qs = (o: Record<string, string | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
};
type Data<T> = { result: 'success'; data: T };

export const kbApi = {
  list: (f: KbListQuery) => api<Data<KbArticleItem[]>>('GET', `/api/kb/articles${qs(f)}`).then((r) => r.data),
  article: (id: number) => api<Data<KbArticle>>('GET', `/api/kb/articles/${id}`).then((r) => r.data),
  create: (input: KbArticleInput) => api<Data<KbArticle>>('POST', '/api/kb/articles', input).then((r) => r.data),
  update: (id: number, input: KbArticleInput) =>
    api<Data<KbArticle>>('PUT', `/api/kb/articles/${id}`, input).then((r) => r.data),
  setPublished: (id: number, publish: boolean) =>
    api<Data<KbArticle>>('POST', `/api/kb/articles/${id}/${publish ? 'publish' : 'unpublish'}`).then((r) => r.data),
  remove: (id: number) => api<{ result: 'success' }>('DELETE', `/api/kb/articles/${id}`),
  categories: (type: KbType, lang: KbLang) =>
    api<Data<KbCategory[]>>('GET', `/api/kb/categories${qs({ type, lang })}`).then((r) => r.data),
  createCategory: (input: KbCategoryInput) =>
    api<Data<KbCategory>>('POST', '/api/kb/categories', input).then((r) => r.data),
  site: () => api<{ token: string }>('GET', '/api/kb/site').then((r) => r.token),
  search: (q: string) => api<Data<KbSearchHit[]>>('GET', `/api/kb/search${qs({ q })}`).then((r) => r.data),
  publicIndex: (token: string, type: string, lang: string, q: string) =>
    api<KbPublicIndexAnswer>('GET', `/api/public/kb/${encodeURIComponent(token)}/${type}/${lang}${qs({ q })}`),
  publicArticle: (token: string, type: string, lang: string, id: string) =>
    api<Data<KbArticle>>(
      'GET',
      `/api/public/kb/${encodeURIComponent(token)}/${type}/${lang}/${encodeURIComponent(id)}`,
    ).then((r) => r.data),
  /** An image for an article: the account's uploads (`POST /api/upload`, no ticket). */
  uploadImage: async (file: File): Promise<{ url: string; name: string }> => {
    const form = new FormData();
    form.append('attachment[]', file, file.name);
    const res = await fetch('/api/upload', { method: 'POST', body: form, credentials: 'include' });
    const body = (await res.json().catch(() => null)) as (UploadAnswer & { description?: string }) | null;
    if (!res.ok || !body) throw new HttpError(res.status, body?.description || 'Failed', body);
    return { url: body.file[0] ?? '', name: body.fileName[0] ?? file.name };
  },
};
