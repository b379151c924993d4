/** A parsed version: numeric core and pre-release identifiers (empty for a release). */
export interface Version {
  core: [number, number, number];
  pre: string[];
}

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]*)?$/i;

/** Lenient like PostHog's Rust matcher: `v` prefix, missing parts padded, leading zeros ignored. */
export function parseVersion(raw: unknown): Version | null {
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  const match = VERSION.exec(String(raw).trim());
  if (!match) return null;
  const core = [match[1], match[2], match[3]].map((part) => Number(part ?? 0)) as Version['core'];
  return { core, pre: match[4] ? match[4].split('.') : [] };
}

function comparePre(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length; // a release sorts after its pre-releases
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    if (!nx && x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i] - b.core[i];
  return comparePre(a.pre, b.pre);
}

function release(core: [number, number, number]): Version {
  return { core, pre: [] };
}

/** The half-open range [lower, upper) of `~`, `^` and `*`, as PostHog's semver operators read them. */
export function versionRange(operator: 'semver_tilde' | 'semver_caret' | 'semver_wildcard', raw: unknown): [Version, Version] | null {
  if (operator === 'semver_wildcard') return wildcardRange(raw);
  const lower = parseVersion(raw);
  if (!lower) return null;
  const [major, minor, patch] = lower.core;
  if (operator === 'semver_tilde') return [lower, release([major, minor + 1, 0])];
  if (major > 0) return [lower, release([major + 1, 0, 0])];
  if (minor > 0) return [lower, release([0, minor + 1, 0])];
  return [lower, release([0, 0, patch + 1])];
}

function wildcardRange(raw: unknown): [Version, Version] | null {
  if (typeof raw !== 'string') return null;
  const match = /^v?(\d+)(?:\.(\d+))?$/i.exec(raw.trim().replace(/(\.(\*|x))+$/i, ''));
  if (!match) return null;
  const major = Number(match[1]);
  if (match[2] === undefined) return [release([major, 0, 0]), release([major + 1, 0, 0])];
  const minor = Number(match[2]);
  return [release([major, minor, 0]), release([major, minor + 1, 0])];
}
