/** FNV-1a: fast, stable across processes and releases, good enough spread for a handful of partitions. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The partition of a distinct_id: all its events go to the same queue, so they are applied in order. */
export function partitionOf(token: string, distinctId: string, partitions: number): number {
  return partitions === 1 ? 0 : fnv1a(`${token}\u0000${distinctId}`) % partitions;
}
