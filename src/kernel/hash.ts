import { hash } from 'node:crypto';

/** 2^60 - 1: the first 15 hex digits of SHA-1 are scaled into [0, 1], as PostHog's `_hash`. */
const SCALE = 0xfffffffffffffff;

/** PostHog's bucketing hash; bit-exact with the Python server, the Rust service and the SDKs. */
export function calculateHash(prefix: string, identifier: string, salt = ''): number {
  // One-shot hashing costs half of createHash().update().digest(); /decide/ hashes every flag of a project.
  const hex = hash('sha1', `${prefix}${identifier}${salt}`, 'hex');
  return parseInt(hex.slice(0, 15), 16) / SCALE;
}

export function rolloutHash(flagKey: string, identifier: string): number {
  return calculateHash(`${flagKey}.`, identifier);
}

export function variantHash(flagKey: string, identifier: string): number {
  return calculateHash(`${flagKey}.`, identifier, 'variant');
}

export function holdoutHash(identifier: string): number {
  return calculateHash('holdout-', identifier);
}

/** No percentage, or 100 % and more, is everyone: the answer needs no hash (a SHA-1 saved). */
export function rolloutCoversEveryone(rolloutPercentage: number | null | undefined): boolean {
  return rolloutPercentage === null || rolloutPercentage === undefined || rolloutPercentage >= 100;
}

/** In the rollout when the hash is at most the percentage (so 100 % is everyone). */
export function inRollout(hash: number, rolloutPercentage: number | null | undefined): boolean {
  return rolloutCoversEveryone(rolloutPercentage) || hash <= (rolloutPercentage as number) / 100;
}
