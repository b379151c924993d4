import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from './api';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** GETs a path whenever it changes (null waits), keeping the last answer while the next one loads. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: path !== null });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    api.get<T>(path).then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: Error) => current && setState((previous) => ({ data: previous.data, error: error.message, loading: false })),
    );
    return () => {
      current = false;
    };
  }, [path, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

/** Calls `tick` every `ms` while the page is visible and `enabled` holds. */
export function useInterval(tick: () => void, ms: number, enabled = true): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!enabled) return;
    const id = window.setInterval(() => {
      if (document.visibilityState === 'visible') saved.current();
    }, ms);
    return () => window.clearInterval(id);
  }, [ms, enabled]);
}
