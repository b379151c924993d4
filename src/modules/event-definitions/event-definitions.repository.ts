import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PropertyDefinitionType } from './property-definition.entity';

@Injectable()
export class EventDefinitionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async eventNames(projectId: number): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.dataSource.query(
      'SELECT name FROM event_definition WHERE project_id = $1 ORDER BY name',
      [projectId],
    );
    return rows.map((row) => row.name);
  }

  async propertyNames(projectId: number, type: PropertyDefinitionType): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.dataSource.query(
      'SELECT DISTINCT name FROM property_definition WHERE project_id = $1 AND type = $2 ORDER BY name',
      [projectId, type],
    );
    return rows.map((row) => row.name);
  }
}
