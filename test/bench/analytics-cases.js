'use strict';
// The questions the analytics phase asks, each as the service's request and as raw ClickHouse SQL for the same
// question on the same copy (its reference). The raw SQL is what a person fluent in ClickHouse writes by hand for
// this data set: it reads each event's `person_id` as it was copied (the data set has no merges), ClickHouse's own
// `windowFunnel` for funnels, and the hot columns (`mat_*`) where they exist. It is a reference, not an oracle: the
// service's answers are pinned by the test suite; a reference says what the engine itself needs for the question.

const json = (value) => encodeURIComponent(JSON.stringify(value));
const text = (value) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const SCOPE = `team_id = 1 AND timestamp >= toStartOfDay(now() - INTERVAL 30 DAY)`;
const PAGEVIEWS = `${SCOPE} AND event = '$pageview'`;
const PERSONS = `(SELECT id, argMax(properties, version) AS properties, argMax(created_at, version) AS created_at FROM person WHERE team_id = 1 GROUP BY id)`;
const STEPS = `event IN ('$pageview', 'signed_up', 'checkout')`;
const FUNNEL_WINDOW = 14 * 86_400;
const windowFunnel = (mode, first = `event = '$pageview'`) =>
  `windowFunnel(${FUNNEL_WINDOW}${mode ? `, '${mode}'` : ''})(toDateTime(timestamp), ${first}, event = 'signed_up', event = 'checkout')`;
const ROTATIONS = [['$pageview', 'signed_up', 'checkout'], ['signed_up', 'checkout', '$pageview'], ['checkout', '$pageview', 'signed_up']];
const levels = (inner) => `SELECT level, count() FROM (${inner}) GROUP BY level ORDER BY level`;

/** First-time retention over the last 11 days: each person's first matching day, and the days they came back. */
function retentionSql(where, unit) {
  const start = unit === 'week' ? 'toStartOfWeek(timestamp)' : 'toDate(timestamp)';
  const from = unit === 'week' ? 'toStartOfWeek(today() - 21)' : 'today() - 10';
  return `SELECT s.period, a.period - s.period AS k, uniqExact(person_id) FROM
    (SELECT person_id, min(${start}) AS period FROM events WHERE ${where} GROUP BY person_id HAVING period >= ${from}) s
    JOIN (SELECT DISTINCT person_id, ${start} AS period FROM events WHERE ${where} AND timestamp >= ${from}) a USING person_id
    WHERE a.period >= s.period GROUP BY s.period, k ORDER BY s.period, k`;
}

/** Recurring retention: every active period starts a cohort (per person, as a join of periods outgrows 1 GB). */
function recurringSql(where, unit) {
  const start = unit === 'week' ? 'toStartOfWeek(timestamp)' : 'toDate(timestamp)';
  const from = unit === 'week' ? 'toStartOfWeek(today() - 21)' : 'today() - 10';
  return `SELECT cohort, k, uniqExact(person_id) FROM (
      SELECT person_id, cohort, arrayJoin(arrayFilter((p) -> p >= cohort, periods)) - cohort AS k
        FROM (SELECT person_id, groupUniqArray(${start}) AS periods FROM events WHERE ${where} AND timestamp >= ${from} GROUP BY person_id)
        ARRAY JOIN periods AS cohort)
    GROUP BY cohort, k ORDER BY cohort, k`;
}

/** Page-view paths: each person's first five URLs from `start` (their first page view when null), edges counted. */
function pathsSql(where, start) {
  const urls = `arrayMap((x) -> x.2, arraySort(groupArray((timestamp, mat_current_url))))`;
  const from = start ? `arraySlice(urls, indexOf(urls, ${text(start)}), 5)` : 'arraySlice(urls, 1, 5)';
  const having = start ? `HAVING has(urls, ${text(start)})` : '';
  return `SELECT concat(toString(i), '_', path[i]) AS source, concat(toString(i + 1), '_', path[i + 1]) AS target, count() AS n
    FROM (SELECT person_id, ${urls} AS urls, ${from} AS path FROM events WHERE ${where} GROUP BY person_id ${having})
    ARRAY JOIN arrayEnumerate(path) AS i WHERE i < length(path) GROUP BY source, target ORDER BY n DESC LIMIT 50`;
}

const STICKINESS = (where) => `SELECT days, count() FROM (SELECT person_id, uniqExact(toDate(timestamp)) AS days FROM events WHERE ${where} GROUP BY person_id) GROUP BY days ORDER BY days`;

/**
 * Lifecycle by hand: each person's active days, their first day (the person's creation), and the day after each
 * run of activity (dormant).
 */
const LIFECYCLE = `SELECT day, status, count() FROM (
    SELECT day, multiIf(day = toDate(p.created_at), 'new', has(days, day - 1), 'returning', 'resurrecting') AS status
      FROM (SELECT person_id, groupUniqArray(toDate(timestamp)) AS days FROM events WHERE ${PAGEVIEWS} GROUP BY person_id) a
      JOIN ${PERSONS} p ON p.id = a.person_id ARRAY JOIN days AS day
    UNION ALL
    SELECT day + 1, 'dormant' FROM (SELECT person_id, groupUniqArray(toDate(timestamp)) AS days FROM events WHERE ${PAGEVIEWS} GROUP BY person_id)
      ARRAY JOIN days AS day WHERE NOT has(days, day + 1) AND day < today())
  GROUP BY day, status ORDER BY day, status`;

/** The funnel persons who reached `level`, one page of them with their properties, as a persons request returns. */
const personsPage = (ids) => `SELECT id, properties FROM ${PERSONS} WHERE id IN (${ids}) ORDER BY id LIMIT 100`;

/**
 * `{ label, path, reference }`: path under /api/projects/1/ with refresh=true (so every request computes, none is a
 * cache hit); reference the raw SQL for the same question.
 */
function insightCases(now = Date.now()) {
  const pageviews = json([{ id: '$pageview' }]);
  const dau = json([{ id: '$pageview', math: 'dau' }]);
  const chrome = json([{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }]);
  // One whole day inside the data set, in UTC (the project's default timezone).
  const day = new Date(now - 3 * 86_400_000).toISOString().slice(0, 10);
  const steps = json([{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }, { id: 'checkout', order: 2 }]);
  const chromeFirst = json([{ id: '$pageview', order: 0, properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] }, { id: 'signed_up', order: 1 }, { id: 'checkout', order: 2 }]);
  const funnelLevels = (mode) => `SELECT person_id, ${windowFunnel(mode)} AS level FROM events WHERE ${mode === 'strict_order' ? SCOPE : `${SCOPE} AND ${STEPS}`} GROUP BY person_id`;
  // Chrome page views are at URLs /p/0, /p/10, /p/20…: a start point they reach.
  const start = 'https://example.com/p/10';
  const first = 'https://example.com/p/1';
  const cases = [
    ['trend DAU, 30 days', `insights/trend/?events=${dau}&date_from=-30d`,
      `SELECT toStartOfDay(timestamp) AS d, uniqExact(person_id) FROM events WHERE ${PAGEVIEWS} GROUP BY d ORDER BY d`],
    ['trend, $browser = Chrome', `insights/trend/?events=${pageviews}&properties=${chrome}&date_from=-30d`,
      `SELECT toStartOfDay(timestamp) AS d, count() FROM events WHERE ${PAGEVIEWS} AND mat_browser = 'Chrome' GROUP BY d ORDER BY d`],
    ['trend by $browser, top 25', `insights/trend/?events=${pageviews}&breakdown=%24browser&breakdown_type=event&breakdown_limit=25&date_from=-30d`,
      `SELECT mat_browser, toStartOfDay(timestamp) AS d, count() FROM events WHERE ${PAGEVIEWS} GROUP BY mat_browser, d ORDER BY mat_browser, d`],
    ['DAU, $current_url icontains /p/1', `insights/trend/?events=${json([{ id: '$pageview', math: 'dau', properties: [{ key: '$current_url', value: '/p/1', operator: 'icontains', type: 'event' }] }])}&date_from=-30d`,
      `SELECT toStartOfDay(timestamp) AS d, uniqExact(person_id) FROM events WHERE ${PAGEVIEWS} AND positionCaseInsensitive(mat_current_url, '/p/1') > 0 GROUP BY d ORDER BY d`],
    ['trend, person plan = pro', `insights/trend/?events=${pageviews}&properties=${json([{ key: 'plan', value: 'pro', type: 'person' }])}&date_from=-30d`,
      `SELECT toStartOfDay(e.timestamp) AS d, count() FROM events e JOIN ${PERSONS} p ON p.id = e.person_id WHERE ${PAGEVIEWS} AND JSONExtractString(p.properties, 'plan') = 'pro' GROUP BY d ORDER BY d`],
    ['trend total by person plan, top 25', `insights/trend/?events=${pageviews}&breakdown=plan&breakdown_type=person&breakdown_limit=25&date_from=-30d`,
      `SELECT JSONExtractString(p.properties, 'plan') AS plan, toStartOfDay(e.timestamp) AS d, count() FROM events e JOIN ${PERSONS} p ON p.id = e.person_id WHERE ${PAGEVIEWS} GROUP BY plan, d ORDER BY plan, d`],
    ['sum of checkout price', `insights/trend/?events=${json([{ id: 'checkout', math: 'sum', math_property: 'price' }])}&date_from=-30d`,
      `SELECT toStartOfDay(timestamp) AS d, sum(JSONExtractFloat(properties, 'price')) FROM events WHERE ${SCOPE} AND event = 'checkout' GROUP BY d ORDER BY d`],
    ['stickiness, 30 days', `insights/trend/?insight=STICKINESS&shown_as=Stickiness&events=${pageviews}&date_from=-30d`, STICKINESS(PAGEVIEWS)],
    ['stickiness, $browser = Chrome', `insights/trend/?insight=STICKINESS&shown_as=Stickiness&events=${pageviews}&properties=${chrome}&date_from=-30d`,
      STICKINESS(`${PAGEVIEWS} AND mat_browser = 'Chrome'`)],
    ['lifecycle, 30 days', `insights/trend/?shown_as=Lifecycle&events=${pageviews}&date_from=-30d`, LIFECYCLE],
    ['persons of one DAU point', `persons/trends/?events=${dau}&entity_id=%24pageview&entity_type=events&entity_math=dau&date_from=${day}&date_to=${day}`,
      personsPage(`SELECT person_id FROM events WHERE team_id = 1 AND event = '$pageview' AND toDate(timestamp) = '${day}'`)],
    ['funnel, 3 steps ordered, 30 days', `insights/funnel/?events=${steps}&date_from=-30d`, levels(funnelLevels(''))],
    ['funnel, 3 steps strict, 30 days', `insights/funnel/?events=${steps}&funnel_order_type=strict&date_from=-30d`, levels(funnelLevels('strict_order'))],
    // As PostHog computes an unordered funnel: the ordered funnel of each rotation of the steps, the most steps any reached.
    ['funnel, 3 steps unordered, 30 days', `insights/funnel/?events=${steps}&funnel_order_type=unordered&date_from=-30d`,
      levels(`SELECT person_id, greatest(${ROTATIONS.map((r) => `windowFunnel(${FUNNEL_WINDOW})(toDateTime(timestamp), ${r.map((e) => `event = '${e}'`).join(', ')})`).join(', ')}) AS level
        FROM events WHERE ${SCOPE} AND ${STEPS} GROUP BY person_id`)],
    ['funnel, first step $browser = Chrome', `insights/funnel/?events=${chromeFirst}&date_from=-30d`,
      levels(`SELECT person_id, ${windowFunnel('', `event = '$pageview' AND mat_browser = 'Chrome'`)} AS level FROM events WHERE ${SCOPE} AND ${STEPS} GROUP BY person_id`)],
    ['funnel by $browser', `insights/funnel/?events=${steps}&breakdown=%24browser&breakdown_type=event&date_from=-30d`,
      `SELECT browser, level, count() FROM (SELECT person_id, argMinIf(mat_browser, timestamp, event = '$pageview') AS browser, ${windowFunnel('')} AS level
        FROM events WHERE ${SCOPE} AND ${STEPS} GROUP BY person_id) GROUP BY browser, level ORDER BY browser, level`],
    ['funnel by person plan, 30 days', `insights/funnel/?events=${steps}&breakdown=plan&breakdown_type=person&date_from=-30d`,
      `SELECT JSONExtractString(p.properties, 'plan') AS plan, level, count() FROM (${funnelLevels('')}) f JOIN ${PERSONS} p ON p.id = f.person_id GROUP BY plan, level ORDER BY plan, level`],
    ['persons of funnel step 3', `persons/funnel/?events=${steps}&funnel_step=3&date_from=-30d`,
      personsPage(`SELECT person_id FROM (${funnelLevels('')}) WHERE level >= 3`)],
    ['funnel correlation, events', `insights/funnel/correlation/?events=${steps}&date_from=-30d`,
      `SELECT e.event, uniqExactIf(e.person_id, f.level = 3), uniqExactIf(e.person_id, f.level < 3) FROM events e
        JOIN (${funnelLevels('')}) f ON f.person_id = e.person_id WHERE ${SCOPE.replaceAll('timestamp', 'e.timestamp').replace('team_id', 'e.team_id')} GROUP BY e.event`],
    ['retention, 11 days, first time', 'insights/retention/?period=Day&total_intervals=11&retention_type=retention_first_time', retentionSql(PAGEVIEWS, 'day')],
    ['retention, 11 days, recurring', 'insights/retention/?period=Day&total_intervals=11', recurringSql(PAGEVIEWS, 'day')],
    ['retention, weekly', 'insights/retention/?period=Week&total_intervals=4', recurringSql(PAGEVIEWS, 'week')],
    ['retention, $browser = Chrome', `insights/retention/?period=Day&total_intervals=11&retention_type=retention_first_time&properties=${chrome}`,
      retentionSql(`${PAGEVIEWS} AND mat_browser = 'Chrome'`, 'day')],
    ['persons of retention cohort 0', 'persons/retention/?period=Day&total_intervals=11&selected_interval=0',
      personsPage(`SELECT person_id FROM events WHERE ${PAGEVIEWS} GROUP BY person_id HAVING min(toDate(timestamp)) = today() - 10`)],
    ['paths from $pageview, step limit 5', 'insights/path/?path_type=%24pageview&step_limit=5&date_from=-30d', pathsSql(PAGEVIEWS, null)],
    ['paths from a start point, $browser = Chrome', `insights/path/?path_type=%24pageview&step_limit=5&date_from=-30d&start_point=${encodeURIComponent(start)}&properties=${chrome}`,
      pathsSql(`${PAGEVIEWS} AND mat_browser = 'Chrome'`, start)],
    ['persons of a path step', `persons/path/?path_type=%24pageview&step_limit=5&date_from=-30d&path_end_key=${encodeURIComponent(`1_${first}`)}`,
      personsPage(`SELECT person_id FROM events WHERE ${PAGEVIEWS} GROUP BY person_id HAVING argMin(mat_current_url, timestamp) = ${text(first)}`)],
  ];
  return cases.map(([label, path, reference]) => ({ label, path: `${path}&refresh=true`, reference }));
}

module.exports = { insightCases };
