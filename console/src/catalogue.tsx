/** The event catalogue (`GET /event-types`), read once per page load: pickers and the catalogue page. */
import { useEffect, useState } from 'preact/hooks';
import { api, type EventCatalogue } from './api';

let loading: Promise<EventCatalogue> | undefined;

export function loadCatalogue(): Promise<EventCatalogue> {
  loading ??= api<EventCatalogue>('/event-types').catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

/** The catalogue's event types, in its order (empty until loaded). */
export function useEventTypes(): readonly string[] {
  const [types, setTypes] = useState<readonly string[]>([]);
  useEffect(() => {
    let live = true;
    loadCatalogue().then(
      (c) => live && setTypes(c.types.map((t) => t.type)),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return types;
}

/** A select of the catalogue's event types, with "any type" first. */
export function TypePicker(props: { value: string; onChange: (type: string) => void; label?: string }) {
  const types = useEventTypes();
  return (
    <label>
      {props.label ?? 'Event type'}
      <select name="eventType" value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">any type</option>
        {types.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
    </label>
  );
}
