import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 256 bits of entropy. */
const KEY_BODY_LENGTH = 43;

/** Uniform random base62 string: bytes ≥ 248 are rejected so no character is favoured. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateProjectApiKey(): string {
  return `phc_${randomBase62(KEY_BODY_LENGTH)}`;
}

export function generatePersonalApiKey(): string {
  return `phx_${randomBase62(KEY_BODY_LENGTH)}`;
}

/** The only form in which a personal key is stored: `sha256$<hex>`, looked up by equality. */
export function hashPersonalApiKey(key: string): string {
  return `sha256$${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** PostHog's mask: first 4 and last 4 characters, or asterisks for short values. */
export function maskKey(key: string): string {
  if (key.length < 16) return '********';
  return `${key.slice(0, 4)}...${key.slice(-4)}`;
}
