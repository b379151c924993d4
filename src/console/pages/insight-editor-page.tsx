import { useEffect, useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { api, errorText, projectApi, queryString, type Page } from '../api';
import { completeFilters, PropertyFiltersEditor } from '../components/property-filters';
import { useApi } from '../hooks';
import { EventInput, EventNames } from '../insights/event-picker';
import { InsightResult } from '../insights/insight-result';
import { DATE_RANGES, defaultState, describe, DISPLAYS, EVENT_SLOTS, type EditorState, fromQuery, KINDS, switchKind, toQuery } from '../insights/insight-query';
import { useSession } from '../session';
import { AddToDashboard } from './add-to-dashboard';
import type { SavedInsight } from './insights-page';

/** Waits this long after the last change before asking the server, so typing a name does not run a query per key. */
const RUN_DELAY_MS = 400;

/** Build an insight, see it as the query API computes it, save it, and put it on a dashboard. */
export function InsightEditorPage({ shortId }: { shortId: string | null }) {
  const { project } = useSession();
  const saved = useApi<Page<SavedInsight>>(shortId ? projectApi(project.id, `insights/${queryString({ short_id: shortId, basic: true })}`) : null);
  const insight = saved.data?.results[0] ?? null;
  const [state, setState] = useState<EditorState>(defaultState());
  const [name, setName] = useState('');
  useEffect(() => {
    if (!insight) return;
    setState(fromQuery(insight.query));
    setName(insight.name ?? '');
  }, [insight]);
  const result = useQueryResult(project.id, state);
  if (shortId && saved.data && !insight) return <p className="empty">No saved insight has the id “{shortId}”.</p>;

  return (
    <>
      <EventNames />
      <div className="toolbar">
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder={describe(state)} aria-label="Insight name" style={{ fontSize: 18, minWidth: 360 }} />
        <span className="spacer" />
        <SaveButton insight={insight} name={name || describe(state)} state={state} onSaved={saved.reload} />
        {insight && <AddToDashboard insight={insight} onAdded={saved.reload} />}
      </div>
      <div className="segmented toolbar" role="tablist">
        {KINDS.map(([kind, label]) => (
          <button key={kind} role="tab" aria-selected={state.kind === kind} className={state.kind === kind ? 'selected' : ''} onClick={() => setState(switchKind(state, kind))}>
            {label}
          </button>
        ))}
      </div>
      <QueryPanel state={state} onChange={(patch) => setState({ ...state, ...patch })} />
      <section className="panel" data-testid="insight-result" aria-busy={result.loading}>
        {result.error ? <p className="error" role="alert">{result.error}</p> : <InsightResult state={state} result={result.data} />}
      </section>
    </>
  );
}

/** What the insight asks: its events (series, steps or start and return), filters, breakdown, range and display. */
function QueryPanel({ state, onChange: set }: { state: EditorState; onChange: (patch: Partial<EditorState>) => void }) {
  return (
    <section className="panel">
      <EventSlots state={state} onChange={set} />
      <h2>Filters</h2>
      <PropertyFiltersEditor types={['event', 'person']} filters={state.properties} onChange={(properties) => set({ properties })} />
      {(state.kind === 'TrendsQuery' || state.kind === 'FunnelsQuery') && <BreakdownInput state={state} onChange={set} />}
      <div className="row" style={{ marginTop: 12 }}>
        <select value={state.dateFrom} onChange={(e) => set({ dateFrom: e.target.value })} aria-label="Date range">
          {DATE_RANGES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {['TrendsQuery', 'StickinessQuery', 'LifecycleQuery'].includes(state.kind) && (
          <select value={state.interval} onChange={(e) => set({ interval: e.target.value as EditorState['interval'] })} aria-label="Interval">
            {['hour', 'day', 'week', 'month'].map((interval) => (
              <option key={interval} value={interval}>
                by {interval}
              </option>
            ))}
          </select>
        )}
        {state.kind === 'TrendsQuery' && (
          <span className="segmented" aria-label="Display">
            {DISPLAYS.map(([display, label]) => (
              <button key={display} className={state.display === display ? 'selected' : ''} onClick={() => set({ display })}>
                {label}
              </button>
            ))}
          </span>
        )}
      </div>
    </section>
  );
}

/** One input per event the kind reads, with + and × where the kind allows more or fewer. */
function EventSlots({ state, onChange: set }: { state: EditorState; onChange: (patch: Partial<EditorState>) => void }) {
  const slots = EVENT_SLOTS[state.kind];
  return (
    <>
      {state.events.map((event, index) => (
        <div className="row" key={index}>
          <span className="muted" style={{ width: 100 }}>
            {slots.labels(index)}
          </span>
          <EventInput value={event} label={slots.labels(index)} onChange={(next) => set({ events: state.events.map((e, i) => (i === index ? next : e)) })} />
          {state.events.length > slots.min && <button onClick={() => set({ events: state.events.filter((_, i) => i !== index) })}>×</button>}
        </div>
      ))}
      {state.events.length < slots.max && <button onClick={() => set({ events: [...state.events, '$pageview'] })}>+ {state.kind === 'FunnelsQuery' ? 'Step' : 'Series'}</button>}
    </>
  );
}

function BreakdownInput({ state, onChange }: { state: EditorState; onChange: (patch: Partial<EditorState>) => void }) {
  const breakdown = state.breakdown;
  return (
    <div className="row">
      <span className="muted">Breakdown by</span>
      <select value={breakdown?.type ?? 'event'} onChange={(e) => onChange({ breakdown: { property: breakdown?.property ?? '', type: e.target.value as 'event' | 'person' } })} aria-label="Breakdown type">
        <option value="event">event property</option>
        <option value="person">person property</option>
      </select>
      <input value={breakdown?.property ?? ''} placeholder="none, e.g. $browser" onChange={(e) => onChange({ breakdown: e.target.value ? { property: e.target.value, type: breakdown?.type ?? 'event' } : null })} aria-label="Breakdown property" />
    </div>
  );
}

/** The query API's answer for the editor's state, asked again a moment after each change. */
function useQueryResult(projectId: number, state: EditorState): { data: unknown; error: string | null; loading: boolean } {
  const [answer, setAnswer] = useState<{ data: unknown; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const query = useMemo(() => JSON.stringify(toQuery({ ...state, properties: completeFilters(state.properties) }).source), [state]);
  useEffect(() => {
    let current = true;
    setAnswer((previous) => ({ ...previous, loading: true }));
    const timer = window.setTimeout(() => {
      api.post<{ results: unknown }>(projectApi(projectId, 'query/'), { query: JSON.parse(query) }).then(
        (response) => current && setAnswer({ data: response.results, error: null, loading: false }),
        (error: Error) => current && setAnswer({ data: null, error: error.message, loading: false }),
      );
    }, RUN_DELAY_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [projectId, query]);
  return answer;
}

function SaveButton({ insight, name, state, onSaved }: { insight: SavedInsight | null; name: string; state: EditorState; onSaved: () => void }) {
  const { project } = useSession();
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);
  async function save() {
    const body = { name, query: toQuery({ ...state, properties: completeFilters(state.properties) }), saved: true };
    try {
      if (insight) {
        await api.patch(projectApi(project.id, `insights/${insight.id}/`), body);
        onSaved();
      } else {
        const created = await api.post<SavedInsight>(projectApi(project.id, 'insights/'), body);
        navigate(`/insights/${created.short_id}`);
      }
      setError(null);
    } catch (failure) {
      setError(errorText(failure));
    }
  }
  return (
    <>
      {error && <span className="error">{error}</span>}
      <button className="primary" onClick={() => void save()}>
        {insight ? 'Save' : 'Save insight'}
      </button>
    </>
  );
}
