import type { ChParams } from '../engine/ch-sql';
import { chLiteral } from './sql-text.ch';

/**
 * Session filters (`type: "session"`): a condition on the session an event belongs to (its `$session_id`), read
 * from every event of the project with that session id, as PostHog's sessions table summarises them
 * (https://github.com/PostHog/posthog/blob/master/posthog/hogql/database/schema/sessions_v2.py). An event without a
 * session id matches none. Each property is one aggregate over the session's events, written into a JSON object
 * so the property conditions read it as they read any properties.
 */

/** The session's first (`argMinIf`) or last non-empty value of a hot column. */
const entry = (column: string) => `argMinIf(${column}, timestamp, notEmpty(ifNull(${column}, '')))`;
const exit = (column: string) => `argMaxIf(${column}, timestamp, notEmpty(ifNull(${column}, '')))`;
const utc = (time: string) => `formatDateTime(${time}, '%Y-%m-%dT%H:%i:%SZ', 'UTC')`;
/** A text as JSON: a JSON string, or null (toJSONString of NULL is NULL, which would empty the whole object). */
const json = (text: string) => `ifNull(toJSONString(${text}), 'null')`;

/** Session property → its SQL over one session's events (numbers as numbers, texts through toJSONString). */
export const SESSION_PROPERTIES: ReadonlyArray<[string, string]> = [
  ['$session_duration', `toString(dateDiff('second', min(timestamp), max(timestamp)))`],
  ['$start_timestamp', json(utc('min(timestamp)'))],
  ['$end_timestamp', json(utc('max(timestamp)'))],
  ['$entry_current_url', json(entry('mat_current_url'))],
  ['$entry_pathname', json(entry('mat_pathname'))],
  ['$entry_referring_domain', json(entry('mat_referring_domain'))],
  ['$end_current_url', json(exit('mat_current_url'))],
  ['$end_pathname', json(exit('mat_pathname'))],
  ['$exit_current_url', json(exit('mat_current_url'))],
  ['$exit_pathname', json(exit('mat_pathname'))],
  ['$pageview_count', `toString(countIf(event = '$pageview'))`],
  ['$autocapture_count', `toString(countIf(event = '$autocapture'))`],
  ['$screen_count', `toString(countIf(event = '$screen'))`],
];

/** One row per session of the project: `session_id` and its `properties` as JSON object text. */
function sessionsSql(team: string): string {
  const fields = SESSION_PROPERTIES.map(([key, sql], i) => `${chLiteral(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:`)}, ${sql}`);
  return `SELECT mat_session_id AS session_id, concat(${fields.join(', ')}, '}') AS properties FROM events
    WHERE team_id = ${team} AND notEmpty(ifNull(mat_session_id, '')) GROUP BY session_id`;
}

/** The event's session (`sessionId`) is one whose properties meet `condition` (SQL over a `properties` column). */
export function sessionFilterSql(sessionId: string, teamId: number, condition: string, p: ChParams): string {
  return `ifNull(${sessionId} IN (SELECT session_id FROM (${sessionsSql(p.add(teamId, 'Int64'))}) WHERE ${condition}), 0)`;
}
