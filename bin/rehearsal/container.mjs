// One Lambda "container" of the rehearsal: a Node process that loads a function's bundle once (its
// init phase) and runs one invocation at a time, told over the IPC channel by ./lambda-host.ts.
// Plain JavaScript on purpose: it runs with nothing but Node, like the Lambda runtime does.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

let handler;

// The rehearsal is gone (however it ended): so is this container.
process.on('disconnect', () => process.exit(0));

function describe(error) {
  if (error instanceof Error) {
    return {
      errorType: error.name,
      errorMessage: error.message,
      stack: error.stack?.split('\n').slice(0, 8),
    };
  }
  return { errorType: 'Error', errorMessage: String(error) };
}

async function init({ codeDir, handler: spec }) {
  // `index.handler`: module `index` of the code folder, export `handler`.
  const dot = spec.lastIndexOf('.');
  const file = spec.slice(0, dot);
  const exportName = spec.slice(dot + 1);
  const path = ['.mjs', '.js', '.cjs']
    .map((ext) => join(codeDir, `${file}${ext}`))
    .find((p) => existsSync(p));
  if (!path)
    throw Object.assign(new Error(`Cannot find module '${file}' in ${codeDir}`), {
      name: 'Runtime.ImportModuleError',
    });
  const mod = await import(pathToFileURL(path).href);
  handler = mod[exportName];
  if (typeof handler !== 'function') {
    throw Object.assign(new Error(`${file}.${exportName} is not a function`), {
      name: 'Runtime.HandlerNotFound',
    });
  }
}

process.on('message', async (message) => {
  if (message.type === 'init') {
    try {
      await init(message);
      process.send({ type: 'ready' });
    } catch (error) {
      process.send({ type: 'init-error', error: describe(error) });
    }
    return;
  }
  if (message.type !== 'invoke') return;
  const { id, event, context: given, deadline, traceId } = message;
  // Lambda sets the trace header of each invocation in the environment (the X-Ray SDK reads it).
  process.env._X_AMZN_TRACE_ID = traceId;
  const context = {
    ...given,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
  try {
    const value = await handler(event, context);
    process.send({ type: 'result', id, value: value === undefined ? null : value });
  } catch (error) {
    process.send({ type: 'error', id, error: describe(error) });
  }
});
