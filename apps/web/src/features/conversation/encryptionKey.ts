/** This browser's encryption key per account lives in `lib/` (the settings card writes it, the pane reads it). */
export {
  type EncryptionMethod,
  encryptionKeyName,
  hasEncryptionKey,
  missingKeyError,
  parseStoredKey,
  type StoredEncryptionKey,
} from '../../lib/encryptionKey';
