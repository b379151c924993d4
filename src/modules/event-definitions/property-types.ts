export type DetectedPropertyType = 'Numeric' | 'Boolean' | 'DateTime' | 'String';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** PostHog's property type detection, for the types it can infer from one value; null for objects and lists. */
export function detectPropertyType(value: unknown): DetectedPropertyType | null {
  if (typeof value === 'number') return Number.isFinite(value) ? 'Numeric' : null;
  if (typeof value === 'boolean') return 'Boolean';
  if (typeof value === 'string') return ISO_DATE.test(value.trim()) && !Number.isNaN(Date.parse(value)) ? 'DateTime' : 'String';
  return null;
}

/** Keys that describe person or group changes, not the event: never event property definitions. */
const NOT_EVENT_PROPERTIES = new Set(['$set', '$set_once', '$unset', '$groups', '$group_0', '$group_1', '$group_2', '$group_3', '$group_4']);

export function isEventPropertyKey(key: string): boolean {
  return !NOT_EVENT_PROPERTIES.has(key);
}
