// API key material: bwk_<env>_<secret> with a 32-byte random secret in base64url. Only the SHA-256
// of the full key is stored, plus its first 12 characters for display.
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PATTERN = /^bwk_(live|test)_[A-Za-z0-9_-]{43}$/;
export const DISPLAY_PREFIX_LENGTH = 12;

export function generateApiKey(env: 'live' | 'test'): { raw: string; hash: string; prefix: string } {
  const raw = `bwk_${env}_${randomBytes(32).toString('base64url')}`;
  return { raw, hash: hashApiKey(raw), prefix: raw.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export function hashApiKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith('bwk_');
}
