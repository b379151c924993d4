/**
 * Event properties kept in a column of their own beside the JSON text, as PostHog's materialized
 * `mat_*` columns: a filter or breakdown on one of them reads a small, well-compressed column instead
 * of parsing every event's properties (measured at 10 M events: about 0.05 s instead of 1–2 s).
 * Each column holds the property's text: a string unescaped, anything else as ClickHouse writes its JSON
 * (numbers through a double, so `1.50` reads `1.5`; objects without spaces), NULL when the key is absent or
 * JSON null. The filter compiler reads a column only where that gives the JSON's own answer. Adding one
 * is a schema migration.
 */
export const HOT_EVENT_PROPERTIES: ReadonlyMap<string, string> = new Map([
  ['$browser', 'mat_browser'],
  ['$os', 'mat_os'],
  ['$device_type', 'mat_device_type'],
  ['$current_url', 'mat_current_url'],
  ['$pathname', 'mat_pathname'],
  ['$host', 'mat_host'],
  ['$referring_domain', 'mat_referring_domain'],
  ['$screen_name', 'mat_screen_name'],
  ['$session_id', 'mat_session_id'],
  ['$lib', 'mat_lib'],
]);

/** The text of a property of a JSON object column (see above); `key` is trusted text (a constant). */
export function propertyTextExpression(column: string, key: string): string {
  const k = `'${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `multiIf(JSONType(${column}, ${k}) = 'String', JSONExtractString(${column}, ${k}), JSONType(${column}, ${k}) = 'Null', NULL, JSONExtractRaw(${column}, ${k}))`;
}
