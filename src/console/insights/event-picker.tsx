import { projectApi, type Page } from '../api';
import { useApi } from '../hooks';
import { useSession } from '../session';

/** Event names the project has seen, offered as suggestions; any name may still be typed. */
export function EventNames() {
  const { project } = useSession();
  const definitions = useApi<Page<{ name: string }>>(projectApi(project.id, 'event_definitions/?limit=500'));
  return (
    <datalist id="event-names">
      {(definitions.data?.results ?? []).map((definition) => (
        <option key={definition.name} value={definition.name} />
      ))}
    </datalist>
  );
}

export function EventInput({ value, onChange, label }: { value: string; onChange: (next: string) => void; label: string }) {
  return <input list="event-names" value={value} onChange={(e) => onChange(e.target.value)} aria-label={label} placeholder="event name" />;
}
