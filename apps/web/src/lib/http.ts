import type { ApiError } from '@parley/contracts';

/** A failed call: `description` is the server's message, else the response text, else "Failed" (AUTH-09). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly body: unknown,
  ) {
    super(description);
  }
}

/** What a failed write says in a form: the server's description, else `fallback` ("Failed", AUTH-09). */
export function errorText(err: unknown, fallback = 'Failed'): string {
  return err instanceof HttpError ? err.description : fallback;
}

async function describe(res: Response): Promise<{ text: string; body: unknown }> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ApiError>;
    return { text: body.description || text || 'Failed', body };
  } catch {
    return { text: text || 'Failed', body: text };
  }
}

/** Every call sends credentials: the HttpOnly session cookie rides along. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'include',
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new HttpError(0, 'Failed', null);
  }
  if (!res.ok) {
    const { text, body: b } = await describe(res);
    throw new HttpError(res.status, text, b);
  }
  return (await res.json()) as T;
}
