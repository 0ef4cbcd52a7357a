import { ErrorCode, PROFILE_PHOTO_TYPES, PROFILE_STRINGS } from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { AppError } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';

/** The key of a `/files/{key}/{name}` URL as `POST /api/upload` answers it. */
const FILE_URL = /^\/files\/([A-Za-z0-9_-]{16,64})\/[^/]+$/;
const IMAGE_TYPES: ReadonlySet<string> = new Set(PROFILE_PHOTO_TYPES);

/**
 * PROFILE-16: sets (or with null removes) the caller's profile picture. The file must be one the caller
 * uploaded in this account through `POST /api/upload`, sniffed there as an image with a thumbnail; the
 * picture is that thumbnail. Emits `user.photo_changed`.
 */
export async function setProfilePhoto(
  db: DB,
  who: { accountId: number; userId: number },
  file: string | null,
): Promise<string | null> {
  return runCommand(db, async (trx) => {
    let photo: string | null = null;
    if (file !== null) {
      const key = FILE_URL.exec(file)?.[1];
      const upload = key
        ? await trx
            .selectFrom('uploads')
            .select(['mime', 'thumb_key'])
            .where('account_id', '=', who.accountId)
            .where('user_id', '=', who.userId)
            .where('key', '=', key)
            .executeTakeFirst()
        : undefined;
      if (!upload) throw new AppError(400, ErrorCode.validation, PROFILE_STRINGS.photoNoUpload);
      if (!IMAGE_TYPES.has(upload.mime) || !upload.thumb_key)
        throw new AppError(400, ErrorCode.validation, PROFILE_STRINGS.photoNotImage);
      photo = `/files/${upload.thumb_key}/thumb.jpg`;
    }
    await trx
      .updateTable('users')
      .set({ photo, updated_at: Date.now() })
      .where('account_id', '=', who.accountId)
      .where('id', '=', who.userId)
      .execute();
    await appendEvent(trx, {
      accountId: who.accountId,
      type: 'user.photo_changed',
      payload: { userId: who.userId, photo },
    });
    return photo;
  });
}
