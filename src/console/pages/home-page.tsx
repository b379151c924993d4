import { Link } from 'wouter';
import { projectApi, type Page } from '../api';
import { snippets } from '../components/snippets';
import { useApi } from '../hooks';
import { useSession } from '../session';

/** The project's keys and how to send a first event; the way in for a project that has none yet. */
export function HomePage() {
  const { project } = useSession();
  const events = useApi<Page<unknown>>(projectApi(project.id, 'events/?limit=1'));
  const host = window.location.origin;
  const empty = events.data !== null && events.data.results.length === 0;
  return (
    <>
      <h1>{project.name}</h1>
      {empty && (
        <div className="notice" data-testid="empty-project">
          This project has no events yet. Send one with any snippet below, then watch it arrive on <Link href="/events">Live events</Link>.
        </div>
      )}
      <section className="panel">
        <h2>Project keys</h2>
        <dl className="keys">
          <dt>Project API key (public, for SDKs)</dt>
          <dd>
            <code data-testid="project-token">{project.api_token}</code> <CopyButton text={project.api_token} />
          </dd>
          <dt>Project id</dt>
          <dd>
            <code>{project.id}</code>
          </dd>
          <dt>API host</dt>
          <dd>
            <code>{host}</code>
          </dd>
        </dl>
        <p className="muted">
          Scripts use a personal API key (Bearer) instead, from <code>npm run cli -- keys create</code>; the API is described at <a href="/api/docs/">/api/docs/</a>.
        </p>
      </section>
      {snippets(project.api_token, host).map((snippet) => (
        <section className="panel" key={snippet.title}>
          <div className="toolbar">
            <h2 style={{ margin: 0 }}>{snippet.title}</h2>
            <span className="spacer" />
            <CopyButton text={snippet.code} />
          </div>
          <pre>{snippet.code}</pre>
        </section>
      ))}
    </>
  );
}

export function CopyButton({ text }: { text: string }) {
  return (
    <button onClick={() => void navigator.clipboard?.writeText(text)} title="Copy to the clipboard">
      Copy
    </button>
  );
}
