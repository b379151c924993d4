import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

export interface Cached<T> {
  value: T;
  lastRefresh: Date;
  isCached: boolean;
}

/** How many computed insights one process keeps. */
const MAX_ENTRIES = 1000;

/**
 * Computed insights per project and normalized query, for ANALYTICS_CACHE_TTL_SECONDS, in this process.
 * The key is the parsed query with its range already resolved to instants, so a relative range (`-7d`)
 * moves on with the clock instead of serving yesterday's answer; `refresh` recomputes and replaces.
 */
@Injectable()
export class InsightCache {
  private readonly entries: LRUCache<string, { value: object; lastRefresh: Date }> | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const ttl = config.analytics.cacheTtlSeconds * 1000;
    this.entries = ttl > 0 ? new LRUCache({ max: MAX_ENTRIES, ttl }) : null;
  }

  async through<T extends object>(projectId: number, key: unknown, refresh: boolean, compute: () => Promise<T>): Promise<Cached<T>> {
    const cacheKey = `${projectId}:${JSON.stringify(key)}`;
    const hit = refresh ? undefined : this.entries?.get(cacheKey);
    if (hit) return { value: hit.value as T, lastRefresh: hit.lastRefresh, isCached: true };
    const value = await compute();
    const lastRefresh = new Date();
    this.entries?.set(cacheKey, { value, lastRefresh });
    return { value, lastRefresh, isCached: false };
  }
}
