/** A property filter as the API reads it (`properties` of a query, a flag condition's `properties`). */
export interface PropertyFilter {
  key: string;
  value?: string | number | Array<string | number>;
  operator: string;
  type: 'event' | 'person';
}
