import type { FlagVariant } from './flag-filters';

/**
 * The variant whose slice of [0, 1) holds the hash; slices follow the listed order. When the
 * percentages sum to less than 100 the remainder gets no variant.
 */
export function pickVariant(variants: readonly FlagVariant[], hash: number): string | null {
  let min = 0;
  for (const variant of variants) {
    const max = min + variant.rollout_percentage / 100;
    if (hash >= min && hash < max) return variant.key;
    min = max;
  }
  return null;
}
