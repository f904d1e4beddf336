/**
 * The API reference: the server's own OpenAPI document (`GET /openapi.json`, generated from the
 * schemas the routes validate with), rendered here, so it is always the running server's API.
 * Operations are grouped by tag; each shows its parameters, body schema and answers.
 */
import { fetchDocument } from '../api';
import { ErrorLine, Section, useLoad } from '../ui';

type Schema = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is JSON, read freely.
type Json = any;

/** The document's named schemas (`components.schemas`), which `$ref`s point to. */
type Named = Record<string, unknown>;

/**
 * A schema as a compact, readable type: `{ url: string, eventTypes?: string[] }`; a named schema is
 * shown by its name, expanded at the top level (`Subscription { id: string, … }`).
 */
export function typeOf(schema: unknown, depth = 0, named: Named = {}): string {
  if (typeof schema !== 'object' || schema === null) return 'any';
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.split('/').at(-1) ?? s.$ref;
    return depth === 0 && named[name] ? `${name} ${typeOf(named[name], depth + 1, named)}` : name;
  }
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.anyOf)) return s.anyOf.map((x) => typeOf(x, depth, named)).join(' | ');
  if (s.type === 'array') return `${typeOf(s.items, depth, named)}[]`;
  if (s.type === 'object' || s.properties) {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    const required = new Set((s.required as string[] | undefined) ?? []);
    const keys = Object.keys(props);
    if (keys.length === 0) return 'object';
    if (depth > 2) return '{ … }';
    return `{ ${keys.map((k) => `${k}${required.has(k) ? '' : '?'}: ${typeOf(props[k], depth + 1, named)}`).join(', ')} }`;
  }
  return typeof s.type === 'string' ? s.type : 'any';
}

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly op: Json;
}

function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, op] of Object.entries(methods)) out.push({ method, path, op: op as Json });
  }
  return out;
}

function OperationView({ method, path, op, named, kind }: Operation & { named: Named; kind: string }) {
  const params = (op.parameters ?? []) as Json[];
  const body = (op.requestBody as Json | undefined)?.content?.['application/json']?.schema;
  const id = String(op.operationId ?? `${method}-${path}`);
  return (
    <details class={kind} id={`op-${id}`}>
      <summary>
        <span class={`method method-${method}`}>{method.toUpperCase()}</span> <code>{path}</code>{' '}
        <span>{String(op.summary ?? '')}</span>
        {Array.isArray(op.security) && op.security.length === 0 ? <span class="badge">public</span> : null}
      </summary>
      {op.description ? <p>{String(op.description)}</p> : null}
      {params.length > 0 ? (
        <table>
          <caption>Parameters</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">In</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {params.map((p) => (
              <tr key={`${p.in}-${p.name}`}>
                <td>
                  <code>{String(p.name)}</code>
                  {p.required ? ' *' : ''}
                </td>
                <td>{String(p.in)}</td>
                <td>
                  <code>{typeOf(p.schema, 0, named)}</code>
                </td>
                <td>{String(p.description ?? (p.schema as Json)?.description ?? '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {body ? (
        <p>
          Body (JSON): <code>{typeOf(body, 0, named)}</code>
        </p>
      ) : null}
      <ul class="responses">
        {Object.entries((op.responses ?? {}) as Record<string, Json>).map(([status, r]) => {
          const schema = r.content?.['application/json']?.schema;
          return (
            <li key={status}>
              <strong>{status}</strong> {String(r.description ?? '')}
              {schema ? (
                <>
                  {' '}
                  <code>{typeOf(schema, 0, named)}</code>
                </>
              ) : null}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

export function ReferencePage() {
  const doc = useLoad<Json>(() => fetchDocument(), []);
  const ops = doc.data ? operations(doc.data) : [];
  const named = (doc.data?.components?.schemas ?? {}) as Named;
  const webhooks = Object.entries((doc.data?.webhooks ?? {}) as Record<string, Json>).map(([type, item]) => ({
    method: 'post',
    path: type,
    op: item.post as Json,
  }));
  const tags = [...new Set(ops.map((o) => String((o.op.tags as string[] | undefined)?.[0] ?? 'other')))];
  return (
    <>
      <h1>API reference</h1>
      <p class="muted">
        {doc.data
          ? `${String(doc.data.info?.title)} ${String(doc.data.info?.version)} · OpenAPI ${String(doc.data.openapi)} · `
          : ''}
        The document itself: <a href="/openapi.json">/openapi.json</a>. Management routes take the admin token
        (or SigV4 on AWS).
      </p>
      <ErrorLine error={doc.error} />
      {tags.map((tag) => (
        <Section key={tag} title={tag}>
          {ops
            .filter((o) => String((o.op.tags as string[] | undefined)?.[0] ?? 'other') === tag)
            .map((o) => (
              <OperationView key={`${o.method} ${o.path}`} {...o} named={named} kind="operation" />
            ))}
        </Section>
      ))}
      {webhooks.length > 0 ? (
        <Section title="webhooks: what a subscription receives">
          <p class="muted">
            One signed POST per event to the subscription's URL; the body is the Standard Webhooks payload
            around the event's envelope. Generate a receiver's types from{' '}
            <a href="/openapi.json">/openapi.json</a>.
          </p>
          {webhooks.map((w) => (
            <OperationView key={w.path} {...w} named={named} kind="webhook" />
          ))}
        </Section>
      ) : null}
    </>
  );
}
