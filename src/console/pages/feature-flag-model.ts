import type { PropertyFilter } from '../property-filter';

export interface ReleaseCondition {
  properties: PropertyFilter[];
  rollout_percentage: number | null;
  variant?: string | null;
}

export interface Variant {
  key: string;
  name?: string;
  rollout_percentage: number;
}

export interface FeatureFlag {
  id: number;
  key: string;
  name: string;
  active: boolean;
  filters: { groups: ReleaseCondition[]; multivariate?: { variants: Variant[] } | null; payloads?: Record<string, unknown> };
}

/** A new flag: everyone, once it is turned on. */
export function blankFlag(): FeatureFlag {
  return { id: 0, key: '', name: '', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: null } };
}

/** "100% of everyone", "2 conditions", with the variants' split when there are any. */
export function rolloutSummary(flag: FeatureFlag): string {
  const groups = flag.filters.groups ?? [];
  const release = groups.length === 1 && groups[0].properties.length === 0 ? `${groups[0].rollout_percentage ?? 100}% of everyone` : `${groups.length} conditions`;
  const variants = flag.filters.multivariate?.variants ?? [];
  return variants.length ? `${release}; variants ${variants.map((variant) => `${variant.key} ${variant.rollout_percentage}%`).join(', ')}` : release;
}

/** What the editor may save, or what is wrong with it, in the words the API would use. */
export function flagProblem(flag: FeatureFlag): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(flag.key)) return 'The key may hold only letters, numbers, hyphens and underscores.';
  const variants = flag.filters.multivariate?.variants ?? [];
  if (variants.length > 0) {
    const total = variants.reduce((sum, variant) => sum + Number(variant.rollout_percentage), 0);
    if (total !== 100) return `The variants' rollout percentages add up to ${total}; they must add up to 100.`;
    if (variants.some((variant) => variant.key.trim() === '')) return 'Every variant needs a key.';
  }
  return null;
}
