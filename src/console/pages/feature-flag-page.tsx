import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { api, errorText, projectApi } from '../api';
import { completeFilters, PropertyFiltersEditor } from '../components/property-filters';
import { useApi } from '../hooks';
import { useSession } from '../session';
import { blankFlag, flagProblem, type FeatureFlag, type ReleaseCondition, type Variant } from './feature-flag-model';

/** Create or edit a flag: name, key, active, release conditions with rollout, and variants. */
export function FeatureFlagPage({ id }: { id: string }) {
  const { project } = useSession();
  const isNew = id === 'new';
  const loaded = useApi<FeatureFlag>(isNew ? null : projectApi(project.id, `feature_flags/${id}/`));
  const [flag, setFlag] = useState<FeatureFlag | null>(isNew ? blankFlag() : null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [, navigate] = useLocation();
  useEffect(() => {
    if (loaded.data) setFlag(loaded.data);
  }, [loaded.data]);
  if (loaded.error) return <p className="error">{loaded.error}</p>;
  if (!flag) return <p>Loading…</p>;

  const filters = flag.filters;
  const setGroups = (groups: ReleaseCondition[]) => setFlag({ ...flag, filters: { ...filters, groups } });
  const setVariants = (variants: Variant[]) => setFlag({ ...flag, filters: { ...filters, multivariate: variants.length ? { variants } : null } });
  const variants = filters.multivariate?.variants ?? [];

  async function save() {
    const problem = flagProblem(flag!);
    setSaved(false);
    if (problem) return setError(problem);
    const groups = filters.groups.map((group) => ({ ...group, properties: completeFilters(group.properties) }));
    const body = { key: flag!.key, name: flag!.name, active: flag!.active, filters: { ...filters, groups } };
    try {
      const result = isNew ? await api.post<FeatureFlag>(projectApi(project.id, 'feature_flags/'), body) : await api.patch<FeatureFlag>(projectApi(project.id, `feature_flags/${flag!.id}/`), body);
      setError(null);
      setSaved(true);
      setFlag(result);
      if (isNew) navigate(`/feature_flags/${result.id}`);
    } catch (failure) {
      setError(errorText(failure));
    }
  }

  return (
    <>
      <h1>{isNew ? 'New feature flag' : flag.key}</h1>
      <section className="panel">
        <div className="row">
          <label>
            Key <input value={flag.key} onChange={(e) => setFlag({ ...flag, key: e.target.value })} aria-label="Flag key" disabled={!isNew} />
          </label>
          <label>
            Description <input value={flag.name} onChange={(e) => setFlag({ ...flag, name: e.target.value })} aria-label="Flag description" style={{ minWidth: 280 }} />
          </label>
          <label>
            <input type="checkbox" checked={flag.active} onChange={(e) => setFlag({ ...flag, active: e.target.checked })} aria-label="Flag active" /> Active
          </label>
        </div>
      </section>
      <section className="panel">
        <h2>Release conditions</h2>
        <p className="muted">A person gets the flag when they match any condition and fall inside its rollout.</p>
        {filters.groups.map((group, index) => (
          <div className="panel" key={index} data-testid="release-condition">
            <PropertyFiltersEditor types={['person']} filters={group.properties} onChange={(properties) => setGroups(filters.groups.map((g, i) => (i === index ? { ...g, properties } : g)))} />
            <div className="row">
              <label>
                Roll out to
                <input
                  type="number"
                  min={0}
                  max={100}
                  value={group.rollout_percentage ?? 100}
                  onChange={(e) => setGroups(filters.groups.map((g, i) => (i === index ? { ...g, rollout_percentage: Number(e.target.value) } : g)))}
                  aria-label="Rollout percentage"
                  style={{ width: 80 }}
                />
                % of {group.properties.length ? 'matching persons' : 'everyone'}
              </label>
              <button className="danger" onClick={() => setGroups(filters.groups.filter((_, i) => i !== index))}>
                Remove condition
              </button>
            </div>
          </div>
        ))}
        <button onClick={() => setGroups([...filters.groups, { properties: [], rollout_percentage: 100 }])}>+ Condition</button>
      </section>
      <section className="panel">
        <h2>Variants</h2>
        <p className="muted">Without variants the flag is on or off; with them each person gets one key, split by these percentages.</p>
        {variants.map((variant, index) => (
          <div className="row" key={index}>
            <input placeholder="variant key" value={variant.key} onChange={(e) => setVariants(variants.map((v, i) => (i === index ? { ...v, key: e.target.value } : v)))} aria-label="Variant key" />
            <input
              type="number"
              min={0}
              max={100}
              value={variant.rollout_percentage}
              onChange={(e) => setVariants(variants.map((v, i) => (i === index ? { ...v, rollout_percentage: Number(e.target.value) } : v)))}
              aria-label="Variant percentage"
              style={{ width: 80 }}
            />
            %<button onClick={() => setVariants(variants.filter((_, i) => i !== index))}>×</button>
          </div>
        ))}
        <button onClick={() => setVariants([...variants, { key: variants.length ? `variant-${variants.length + 1}` : 'control', rollout_percentage: 0 }])}>+ Variant</button>
      </section>
      {error && <p className="error" role="alert">{error}</p>}
      {saved && <p className="muted" role="status">Saved.</p>}
      <button className="primary" onClick={() => void save()}>
        Save
      </button>
    </>
  );
}
