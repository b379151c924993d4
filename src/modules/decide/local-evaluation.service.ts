import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import type { FlagSnapshot } from './flag-snapshot';
import { FlagSnapshotsService } from './flag-snapshots.service';
import { DefinitionsDocument, definitionsDocument } from './local-evaluation';

/** Definitions for SDK local evaluation, serialised once per snapshot and variant (SDKs poll every 30 s). */
@Injectable()
export class LocalEvaluationService {
  private readonly documents = new WeakMap<FlagSnapshot, Map<boolean, DefinitionsDocument>>();

  constructor(private readonly snapshots: FlagSnapshotsService) {}

  async definitions(projectId: number, sendCohorts: boolean): Promise<DefinitionsDocument> {
    let snapshot: FlagSnapshot;
    try {
      snapshot = await this.snapshots.get(projectId);
    } catch {
      throw ApiError.unavailable('Feature flags could not be loaded. Please try again.');
    }
    let variants = this.documents.get(snapshot);
    if (!variants) this.documents.set(snapshot, (variants = new Map()));
    let document = variants.get(sendCohorts);
    if (!document) variants.set(sendCohorts, (document = definitionsDocument(snapshot, sendCohorts)));
    return document;
  }
}
