import type { PropertyFilter } from '../property-filter';

export type { PropertyFilter };

const OPERATORS: Array<[string, string]> = [
  ['exact', 'equals'],
  ['is_not', "doesn't equal"],
  ['icontains', 'contains'],
  ['not_icontains', "doesn't contain"],
  ['regex', 'matches regex'],
  ['gt', 'greater than'],
  ['lt', 'less than'],
  ['is_set', 'is set'],
  ['is_not_set', 'is not set'],
];
const VALUELESS = new Set(['is_set', 'is_not_set']);

/** Rows of key, operator and value; `types` lists what the filters may read (flags read only person properties). */
export function PropertyFiltersEditor({ filters, onChange, types }: { filters: PropertyFilter[]; onChange: (next: PropertyFilter[]) => void; types: Array<PropertyFilter['type']> }) {
  const update = (index: number, patch: Partial<PropertyFilter>) => onChange(filters.map((filter, i) => (i === index ? normalized({ ...filter, ...patch }) : filter)));
  return (
    <div className="property-filters">
      {filters.map((filter, index) => (
        <div className="row" key={index}>
          {types.length > 1 && (
            <select value={filter.type} onChange={(e) => update(index, { type: e.target.value as PropertyFilter['type'] })} aria-label="Property type">
              {types.map((type) => (
                <option key={type} value={type}>
                  {type} property
                </option>
              ))}
            </select>
          )}
          <input placeholder="property, e.g. $browser" value={filter.key} onChange={(e) => update(index, { key: e.target.value })} aria-label="Property key" />
          <select value={filter.operator} onChange={(e) => update(index, { operator: e.target.value })} aria-label="Operator">
            {OPERATORS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          {!VALUELESS.has(filter.operator) && (
            <input placeholder="value" value={displayValue(filter.value)} onChange={(e) => update(index, { value: e.target.value })} aria-label="Property value" />
          )}
          <button onClick={() => onChange(filters.filter((_, i) => i !== index))} aria-label="Remove filter">
            ×
          </button>
        </div>
      ))}
      <button onClick={() => onChange([...filters, { key: '', operator: 'exact', value: '', type: types[0] }])}>+ Filter</button>
    </div>
  );
}

/** Filters a user finished: a key, and a value unless the operator needs none. */
export function completeFilters(filters: PropertyFilter[]): PropertyFilter[] {
  return filters.filter((filter) => filter.key.trim() !== '' && (VALUELESS.has(filter.operator) || displayValue(filter.value) !== ''));
}

function normalized(filter: PropertyFilter): PropertyFilter {
  if (VALUELESS.has(filter.operator)) return { key: filter.key, operator: filter.operator, type: filter.type };
  return { ...filter, value: filter.value ?? '' };
}

function displayValue(value: PropertyFilter['value']): string {
  return Array.isArray(value) ? value.join(', ') : value === undefined ? '' : String(value);
}
