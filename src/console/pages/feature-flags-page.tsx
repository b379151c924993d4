import { Link } from 'wouter';
import { api, projectApi, type Page } from '../api';
import { useApi } from '../hooks';
import { useSession } from '../session';
import { rolloutSummary, type FeatureFlag } from './feature-flag-model';

/** Every flag with its rollout, and a switch that turns it on or off at once. */
export function FeatureFlagsPage() {
  const { project } = useSession();
  const flags = useApi<Page<FeatureFlag>>(projectApi(project.id, 'feature_flags/?limit=200'));
  async function toggle(flag: FeatureFlag) {
    await api.patch(projectApi(project.id, `feature_flags/${flag.id}/`), { active: !flag.active });
    flags.reload();
  }
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Feature flags</h1>
        <span className="spacer" />
        <Link href="/feature_flags/new">
          <button className="primary">New flag</button>
        </Link>
      </div>
      {flags.error && <p className="error">{flags.error}</p>}
      <table data-testid="flags-table">
        <thead>
          <tr>
            <th>Key</th>
            <th>Name</th>
            <th>Release</th>
            <th>Active</th>
          </tr>
        </thead>
        <tbody>
          {(flags.data?.results ?? []).map((flag) => (
            <tr key={flag.id} data-flag={flag.key}>
              <td>
                <Link href={`/feature_flags/${flag.id}`}>{flag.key}</Link>
              </td>
              <td>{flag.name}</td>
              <td className="muted">{rolloutSummary(flag)}</td>
              <td>
                <label className="switch">
                  <input type="checkbox" checked={flag.active} onChange={() => void toggle(flag)} aria-label={`Active: ${flag.key}`} />
                  <span className={`badge ${flag.active ? 'on' : ''}`}>{flag.active ? 'on' : 'off'}</span>
                </label>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {flags.data?.results.length === 0 && <p className="empty">No flags yet: create one, then read it from an SDK with <code>isFeatureEnabled</code>.</p>}
    </>
  );
}
