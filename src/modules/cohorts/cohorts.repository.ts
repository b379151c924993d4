import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { CohortEntity } from './cohort.entity';

@Injectable()
export class CohortsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Live cohorts of the project among `ids`. */
  findLive(projectId: number, ids: number[]): Promise<CohortEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.getRepository(CohortEntity).findBy({ projectId, id: In(ids), deleted: false });
  }
}
