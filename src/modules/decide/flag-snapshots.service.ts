import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { CohortsService } from '../cohorts/cohorts.service';
import { FeatureFlagsService } from '../feature-flags/feature-flags.service';
import { GroupsService } from '../groups/groups.service';
import { ProjectsService } from '../projects/projects.service';
import { buildSnapshot, FlagSnapshot } from './flag-snapshot';

/**
 * How often each process asks for the `flags_version` of the projects it holds. Every flag, cohort
 * and group-type write bumps that version in its own transaction, so a change reaches every API
 * process within one interval plus one reload: within a second.
 */
export const SNAPSHOT_POLL_MS = 250;
/** A project nobody evaluated for this long is dropped from memory. */
const IDLE_EVICTION_MS = 10 * 60_000;

interface Entry {
  snapshot: Promise<FlagSnapshot>;
  version: string | null;
  lastUsed: number;
}

/** Per-project flags, cohorts and group types in memory: the hot paths never read them from the database. */
@Injectable()
export class FlagSnapshotsService implements OnModuleDestroy {
  private readonly logger = new Logger(FlagSnapshotsService.name);
  private readonly entries = new Map<number, Entry>();
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly flags: FeatureFlagsService,
    private readonly cohorts: CohortsService,
    private readonly groups: GroupsService,
    private readonly projects: ProjectsService,
  ) {
    this.timer = setInterval(() => void this.poll(), SNAPSHOT_POLL_MS);
    this.timer.unref();
    projects.onFlagsChanged((projectId) => this.invalidate(projectId));
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The project's current snapshot, loading it on first use (one load however many requests wait). */
  get(projectId: number): Promise<FlagSnapshot> {
    let entry = this.entries.get(projectId);
    if (!entry) {
      const created: Entry = { snapshot: this.load(projectId), version: null, lastUsed: 0 };
      created.snapshot.then(
        (snapshot) => (created.version = snapshot.version),
        // A failed load is not cached: the next request tries again.
        () => this.entries.get(projectId) === created && this.entries.delete(projectId),
      );
      this.entries.set(projectId, (entry = created));
    }
    entry.lastUsed = Date.now();
    return entry.snapshot;
  }

  /** A write in this process: the next request waits for the reload instead of seeing the old snapshot. */
  private invalidate(projectId: number): void {
    if (this.entries.delete(projectId)) void this.get(projectId).catch(() => undefined);
  }

  /** The version is read before the data: a write landing in between is picked up by the next poll. */
  private async load(projectId: number): Promise<FlagSnapshot> {
    const version = (await this.projects.flagsVersions([projectId])).get(projectId) ?? '0';
    const [flags, cohorts, groupTypes] = await Promise.all([
      this.flags.liveFlags(projectId),
      this.cohorts.liveDefinitions(projectId),
      this.groups.typeMapping(projectId),
    ]);
    return buildSnapshot(projectId, version, flags, cohorts, groupTypes);
  }

  private async poll(): Promise<void> {
    if (this.polling || this.entries.size === 0) return;
    this.polling = true;
    try {
      this.evictIdle(Date.now());
      const ids = [...this.entries.keys()];
      const versions = await this.projects.flagsVersions(ids);
      for (const id of ids) {
        const entry = this.entries.get(id);
        const current = versions.get(id);
        if (!entry || entry.version === null) continue;
        if (current === undefined) this.entries.delete(id);
        else if (current !== entry.version) this.refresh(id, entry);
      }
    } catch (error) {
      // The database is briefly unreachable: keep serving what we have and try again next tick.
      this.logger.warn(`flag snapshot poll failed: ${(error as Error).message}`);
    } finally {
      this.polling = false;
    }
  }

  /** Requests keep the old snapshot until the new one is ready; after a failed reload the next poll retries. */
  private refresh(projectId: number, entry: Entry): void {
    const known = entry.version;
    entry.version = null;
    const next = this.load(projectId);
    next.then(
      (snapshot) => {
        entry.snapshot = next;
        entry.version = snapshot.version;
      },
      () => (entry.version = known),
    );
  }

  private evictIdle(now: number): void {
    for (const [id, entry] of this.entries) if (now - entry.lastUsed > IDLE_EVICTION_MS) this.entries.delete(id);
  }
}
