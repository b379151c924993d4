import { Column, Entity, PrimaryColumn } from 'typeorm';

/** PostHog's property definition types: 1 event, 2 person, 3 group. */
export enum PropertyDefinitionType {
  Event = 1,
  Person = 2,
  Group = 3,
}

@Entity('property_definition')
export class PropertyDefinitionEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('integer', { name: 'project_id' })
  projectId: number;

  @Column('text')
  name: string;

  @Column('smallint')
  type: PropertyDefinitionType;

  @Column('smallint', { name: 'group_type_index', nullable: true })
  groupTypeIndex: number | null;

  @Column('text', { name: 'property_type', nullable: true })
  propertyType: string | null;

  @Column('boolean', { name: 'is_numerical' })
  isNumerical: boolean;
}
