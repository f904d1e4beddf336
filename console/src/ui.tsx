/** Small shared pieces of the console: hooks for loading and polling, and plain elements. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: string | undefined;
  readonly reload: () => void;
}

/** Loads with `load`, again when `deps` change and every `everyMs` (live pages) while mounted. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(undefined);
      },
      (e: unknown) => live && setError(describe(e)),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  useEffect(() => {
    if (everyMs === undefined) return;
    const timer = setInterval(reload, everyMs);
    return () => clearInterval(timer);
  }, [everyMs, reload]);
  return { data, error, reload };
}

export function describe(e: unknown): string {
  if (e instanceof ApiError) return `${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

export function ErrorLine({ error }: { error: string | undefined }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function When({ iso }: { iso: unknown }) {
  if (typeof iso !== 'string') return <span class="muted">—</span>;
  return <time dateTime={iso}>{iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>;
}

export function Badge({ value }: { value: unknown }) {
  const text = String(value ?? '—');
  return <span class={`badge badge-${text.replace(/[^a-z_-]/gi, '')}`}>{text}</span>;
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export interface ConfirmChoice {
  readonly label: string;
  readonly run: () => void;
}

/**
 * An inline confirmation: what will happen, then the choices and Cancel. A region with a name (not a
 * modal), so the page stays readable and the test finds it by role.
 */
export function Confirm(props: {
  title: string;
  children: ComponentChildren;
  choices: readonly ConfirmChoice[];
  onCancel: () => void;
}) {
  return (
    <div class="confirm" role="dialog" aria-label={props.title}>
      <strong>{props.title}</strong>
      <div>{props.children}</div>
      <div class="confirm-actions">
        {props.choices.map((c) => (
          <button key={c.label} type="button" class="primary" onClick={c.run}>
            {c.label}
          </button>
        ))}
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
