import { PropertyDefinitionType } from './property-definition.entity';
import { MAX_DEFINITION_NAME_LENGTH } from './event-definition-rules';
import { detectPropertyType, isEventPropertyKey } from './property-types';

export interface PropertySighting {
  name: string;
  type: PropertyDefinitionType;
  propertyType: string | null;
  isNumerical: boolean;
}

export interface TaxonomySighting {
  eventNames: string[];
  properties: PropertySighting[];
}

interface EventLike {
  event: string;
  properties: Record<string, unknown>;
}

const CACHE_LIMIT = 100_000;

function addProperties(into: Map<string, PropertySighting>, values: unknown, type: PropertyDefinitionType, filter?: (key: string) => boolean) {
  if (values === null || typeof values !== 'object' || Array.isArray(values)) return;
  for (const [name, value] of Object.entries(values)) {
    if (name.length > MAX_DEFINITION_NAME_LENGTH || (filter && !filter(name))) continue;
    const key = `${type}\u0000${name}`;
    if (into.has(key)) continue;
    const propertyType = detectPropertyType(value);
    into.set(key, { name, type, propertyType, isNumerical: propertyType === 'Numeric' });
  }
}

/**
 * Remembers what each process already wrote, so definitions cost a write only on first sight of a
 * property and once a day per event name (PostHog's `last_seen_at` resolution), not once per event.
 */
export class DefinitionsRecorder {
  private readonly eventDays = new Map<string, string>();
  private readonly knownProperties = new Set<string>();

  /** What of these events is new to this process today; call `remember` once it is written. */
  unseen(projectId: number, events: EventLike[], now: Date): TaxonomySighting {
    const day = now.toISOString().slice(0, 10);
    const names = new Set<string>();
    const properties = new Map<string, PropertySighting>();
    for (const { event, properties: props } of events) {
      if (event.length <= MAX_DEFINITION_NAME_LENGTH && event !== '$$plugin_metrics' && this.eventDays.get(`${projectId}\u0000${event}`) !== day) {
        names.add(event);
      }
      addProperties(properties, props, PropertyDefinitionType.Event, isEventPropertyKey);
      addProperties(properties, props.$set, PropertyDefinitionType.Person);
      addProperties(properties, props.$set_once, PropertyDefinitionType.Person);
    }
    const fresh = [...properties.values()].filter((p) => !this.knownProperties.has(`${projectId}\u0000${p.type}\u0000${p.name}`));
    return { eventNames: [...names], properties: fresh };
  }

  remember(projectId: number, sighting: TaxonomySighting, now: Date): void {
    if (this.eventDays.size > CACHE_LIMIT) this.eventDays.clear();
    if (this.knownProperties.size > CACHE_LIMIT) this.knownProperties.clear();
    const day = now.toISOString().slice(0, 10);
    for (const name of sighting.eventNames) this.eventDays.set(`${projectId}\u0000${name}`, day);
    for (const p of sighting.properties) this.knownProperties.add(`${projectId}\u0000${p.type}\u0000${p.name}`);
  }
}
