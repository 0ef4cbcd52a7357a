import { CHANNEL_STRINGS } from '@parley/contracts';
import { callProvider, type InboundMessage, type OpenConnection, type Parsed, ProviderError } from '../adapter.js';
import { metaRefusal } from './meta.js';

/**
 * Comments under posts, through the same Meta webhook as the messages (one callback address per app and
 * object): a Facebook Page's `feed` changes (FB_PAGE_POST) and an Instagram account's `comments` and `mentions`
 * (IG_POST, IG_MENTION). One ticket per post (the peer names it); a reply answers the thread's latest comment.
 */

/** One `entry[].changes[]` of a Meta webhook. */
export interface MetaChange {
  field?: string;
  value?: Record<string, unknown> & {
    item?: string;
    verb?: string;
    comment_id?: string;
    post_id?: string;
    parent_id?: string;
    message?: string;
    created_time?: number | string;
    from?: { id?: string; name?: string; username?: string };
    post?: { id?: string; permalink_url?: string };
    photo?: string;
    video?: string;
    id?: string;
    text?: string;
    media?: { id?: string; media_product_type?: string };
    media_id?: string;
  };
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : '');
/** Graph's `created_time` is seconds since the epoch (a number, or an ISO date in older versions). */
const timeOf = (v: unknown, fallback: number) => {
  if (typeof v === 'number') return v < 1e12 ? v * 1000 : v;
  const t = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isFinite(t) ? t : fallback;
};

/** Peers: one ticket per post (Facebook), per media (Instagram comments) and per media mentioning us. */
export const postPeer = (postId: string) => `post:${postId}`;
export const mediaPeer = (mediaId: string) => `media:${mediaId}`;
export const mentionPeer = (mediaId: string) => `mention:${mediaId}`;

/**
 * A Page's `feed` change: a comment added (a message of the post's ticket), removed (hidden like a deleted
 * message); edits, reactions, posts and the Page's own comments (our replies) are skipped.
 */
export function readFeedChange(ch: MetaChange, pageId: string, at: number, out: Parsed) {
  const v = ch.value;
  if (ch.field !== 'feed' || !v || v.item !== 'comment') return;
  const commentId = str(v.comment_id);
  const postId = str(v.post_id) || str(v.post?.id);
  if (!commentId || !postId) return;
  if (v.verb === 'remove') return void out.unsent?.push(commentId);
  if (v.verb !== 'add' || str(v.from?.id) === pageId) return;
  const files = [str(v.photo), str(v.video)].filter(Boolean);
  out.messages.push({
    providerId: commentId,
    peer: postPeer(postId),
    name: str(v.from?.name),
    text: [str(v.message), ...files].filter(Boolean).join('\n') || CHANNEL_STRINGS.unsupported('comment'),
    at: timeOf(v.created_time, at),
    channel: 'FB_PAGE_POST',
    replyTo: commentId,
    context: { id: postId, link: str(v.post?.permalink_url) },
  });
}

/**
 * An Instagram account's `comments` change (a comment on its media: IG_POST) or `mentions` change (@ in a
 * comment or caption elsewhere: IG_MENTION, its text asked of the API). The account's own comments are
 * skipped. Instagram answers only top comments, so a reply's thread answers the reply's parent.
 */
export function readIgChange(ch: MetaChange, igId: string, at: number, out: Parsed) {
  const v = ch.value;
  if (!v) return;
  if (ch.field === 'comments') {
    const id = str(v.id);
    const mediaId = str(v.media?.id);
    if (!id || !mediaId || str(v.from?.id) === igId) return;
    out.messages.push({
      providerId: id,
      peer: mediaPeer(mediaId),
      name: str(v.from?.username) ? `@${str(v.from?.username)}` : '',
      text: str(v.text) || CHANNEL_STRINGS.unsupported('comment'),
      at,
      channel: 'IG_POST',
      replyTo: str(v.parent_id) || id,
      context: { id: mediaId, link: '' },
    });
  } else if (ch.field === 'mentions') {
    const mediaId = str(v.media_id);
    const commentId = str(v.comment_id);
    if (!mediaId) return;
    out.messages.push({
      providerId: `mention:${commentId || mediaId}`,
      peer: mentionPeer(mediaId),
      name: '',
      text: CHANNEL_STRINGS.unsupported('mention'),
      at,
      channel: 'IG_MENTION',
      replyTo: commentId ? `${mediaId}:${commentId}` : mediaId,
      incomplete: true,
    });
  }
}

const auth = (c: OpenConnection) => ({
  authorization: `Bearer ${c.secrets.accessToken ?? ''}`,
  'content-type': 'application/json',
});

/** Graph's longest comment (8,000 characters); Messenger's private reply is one message (2,000). */
const MAX_COMMENT = 8000;

async function postJson(url: string, c: OpenConnection, body: unknown) {
  const res = await callProvider(url, { method: 'POST', headers: auth(c), body: JSON.stringify(body) });
  if (!res.ok) throw await metaRefusal(res);
  return (await res.json()) as { id?: string; message_id?: string };
}

/**
 * A reply in a comment thread: Facebook under the comment (`POST /{comment-id}/comments`) or privately
 * (`POST /{page-id}/messages` with `recipient.comment_id`: Messenger's private reply); Instagram under the
 * top comment (`POST /{comment-id}/replies`) or, for a mention, `POST /{ig-id}/mentions`. Answers Meta's id.
 */
export async function sendPostReply(
  apiUrl: string,
  c: OpenConnection,
  o: { channel: string; text: string; replyTo?: string; privately?: boolean },
): Promise<string> {
  if (!o.replyTo) throw new ProviderError(CHANNEL_STRINGS.noCommentToAnswer, false);
  const max = o.privately ? 2000 : MAX_COMMENT;
  if (o.text.length > max) throw new ProviderError(CHANNEL_STRINGS.tooLong(max), false);
  const at = (id: string) => encodeURIComponent(id);
  let j: { id?: string; message_id?: string };
  if (o.channel === 'FB_PAGE_POST' && o.privately)
    j = await postJson(`${apiUrl}/${at(c.settings.pageId ?? '')}/messages`, c, {
      recipient: { comment_id: o.replyTo },
      message: { text: o.text },
    });
  else if (o.channel === 'FB_PAGE_POST')
    j = await postJson(`${apiUrl}/${at(o.replyTo)}/comments`, c, { message: o.text });
  else if (o.channel === 'IG_POST') j = await postJson(`${apiUrl}/${at(o.replyTo)}/replies`, c, { message: o.text });
  else {
    const [mediaId, commentId] = o.replyTo.split(':');
    j = await postJson(`${apiUrl}/${at(c.settings.igAccountId ?? '')}/mentions`, c, {
      media_id: mediaId,
      ...(commentId ? { comment_id: commentId } : {}),
      message: o.text,
    });
  }
  const id = j.message_id ?? j.id;
  if (!id) throw new ProviderError('Meta answered without an id.', false);
  return id;
}

/** The text of a post (Facebook `message`, Instagram `caption`) and its link, for the thread's first message. */
export async function postText(apiUrl: string, c: OpenConnection, id: string): Promise<string> {
  const fields = c.kind === 'instagram' ? 'caption,permalink' : 'message,permalink_url';
  const res = await callProvider(`${apiUrl}/${encodeURIComponent(id)}?fields=${fields}`, { headers: auth(c) }, 5_000);
  if (!res.ok) throw await metaRefusal(res);
  const j = (await res.json()) as { message?: string; caption?: string };
  return j.message ?? j.caption ?? '';
}

/**
 * An Instagram mention's words: the comment (`mentioned_comment`) or the caption (`mentioned_media`) asked of
 * the account, as Meta documents (the webhook names only ids).
 */
export async function mentionText(apiUrl: string, c: OpenConnection, m: InboundMessage) {
  const [mediaId, commentId] = (m.replyTo ?? '').split(':');
  const field = commentId
    ? `mentioned_comment.comment_id(${commentId}){text,username,timestamp}`
    : `mentioned_media.media_id(${mediaId}){caption,username,permalink}`;
  const res = await callProvider(
    `${apiUrl}/${encodeURIComponent(c.settings.igAccountId ?? '')}?fields=${encodeURIComponent(field)}`,
    { headers: auth(c) },
    5_000,
  );
  if (!res.ok) throw await metaRefusal(res);
  const j = (await res.json()) as {
    mentioned_comment?: { text?: string; username?: string };
    mentioned_media?: { caption?: string; username?: string; permalink?: string };
  };
  const found = j.mentioned_comment ?? j.mentioned_media;
  const text =
    j.mentioned_comment?.text ?? [j.mentioned_media?.caption, j.mentioned_media?.permalink].filter(Boolean).join('\n');
  return { text: text ?? '', name: found?.username ? `@${found.username}` : '' };
}
