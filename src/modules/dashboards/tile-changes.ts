import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import { parseId } from '../../common/validation/patterns';
import type { TileDisplay } from '../dashboard-tiles/dashboard-tiles.repository';
import { checkedDashboardFilters } from './dashboard-filters';

/** A dashboard PATCH's `tiles`: changes to how existing tiles show, and new text tiles. */
export type TileChange = { id: number; display: TileDisplay } | { text: string; layouts: Record<string, unknown> };

/** PostHog's limit on a text tile's body. */
const MAX_TEXT = 4000;

function fail(i: number, detail: string): never {
  throw ApiError.validation(`tiles[${i}]${detail}`, 'tiles');
}

function textOf(raw: unknown, i: number): string | undefined {
  if (raw === undefined) return undefined;
  if (!isJsonObject(raw) || typeof raw.body !== 'string') fail(i, '.text must be {"body": "…"}.');
  if (raw.body.length > MAX_TEXT) fail(i, `.text.body must be at most ${MAX_TEXT} characters.`);
  return raw.body;
}

function optional<T>(tile: Record<string, unknown>, key: string, i: number, check: (value: unknown) => value is T, what: string): T | undefined {
  const value = tile[key];
  if (value === undefined) return undefined;
  if (!check(value)) fail(i, `.${key} must be ${what}.`);
  return value;
}

const isObject = (value: unknown): value is Record<string, unknown> => isJsonObject(value);
const isNullableText = (value: unknown): value is string | null => value === null || typeof value === 'string';
const isNullableBoolean = (value: unknown): value is boolean | null => value === null || typeof value === 'boolean';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

export function parseTileChanges(raw: unknown): TileChange[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw ApiError.validation('tiles must be a list of tile changes: [{"id": 1, "layouts": {…}}] or [{"text": {"body": "…"}}].', 'tiles');
  return raw.map((tile, i): TileChange => {
    if (!isJsonObject(tile)) fail(i, ' must be an object.');
    const layouts = optional(tile, 'layouts', i, isObject, 'an object ({"sm": {"x", "y", "w", "h"}, …})');
    const text = textOf(tile.text, i);
    if (tile.id === undefined || tile.id === null) {
      if (text === undefined) fail(i, ' needs an id (a tile to change) or a text (a text tile to add).');
      return { text, layouts: layouts ?? {} };
    }
    const id = parseId(tile.id);
    if (id === null) fail(i, '.id must be a tile id.');
    const overrides = tile.filters_overrides === undefined ? undefined : (checkedDashboardFilters(tile.filters_overrides, 'tiles') as Record<string, unknown>);
    return {
      id,
      display: {
        layouts,
        color: optional(tile, 'color', i, isNullableText, 'a color name or null'),
        filtersOverrides: overrides,
        showDescription: optional(tile, 'show_description', i, isNullableBoolean, 'true, false or null'),
        transparentBackground: optional(tile, 'transparent_background', i, isNullableBoolean, 'true, false or null'),
        deleted: optional(tile, 'deleted', i, isBoolean, 'true or false'),
        textBody: text,
      },
    };
  });
}
