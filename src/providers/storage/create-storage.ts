// Picks the storage implementation from the configuration: S3 when S3_BUCKET is set, else the local
// filesystem. Apart from the interface (storage.ts), which the implementations import.
import type { Config } from '../../config.js';
import { LocalStorage } from './local-storage.js';
import type { Storage } from './storage.js';

export async function createStorage(config: Pick<Config, 'dataDir' | 's3'>): Promise<Storage> {
  // The AWS SDK loads only when S3 is configured.
  return config.s3 ? new (await import('./s3-storage.js')).S3Storage(config.s3) : LocalStorage.open(config.dataDir);
}
