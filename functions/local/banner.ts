/** The banner `carhook dev` prints once everything runs. */
import { formatDuration } from './duration';
import type { LocalRuntime } from './options';

/** What runs where, and the commands to use it. */
export function banner(rt: LocalRuntime, options: { generatedToken: boolean; receiverUrl?: string }): string {
  const lines = [
    '',
    'Carhook is running locally',
    `  console         ${rt.apiUrl}/   (sign in with the admin token below)`,
    `  HTTP API        ${rt.apiUrl}   OpenAPI 3.1 at ${rt.apiUrl}/openapi.json`,
    rt.sim
      ? `  simulator       ${rt.sim.url}   control API ${rt.sim.url}/_sim   (${rt.sim.world.vehicleCount} vehicles, ${rt.sim.world.users().length} users)`
      : `  API             ${rt.runtime.settings.api.baseUrl}   auth ${rt.runtime.settings.api.authUrl}`,
    ...(rt.sim
      ? []
      : [`  map API         ${rt.runtime.settings.api.baseUrl}/applications/map/v1   ${rt.mapApi}`]),
    `  DynamoDB Local  ${rt.dynamoEndpoint}   ${rt.dataDir ? `persisted in ${rt.dataDir}` : 'in memory'}`,
    `  events (JSONL)  ${rt.jsonlPath}`,
    rt.clock === 'simulated' && rt.sim
      ? `  polling         on the simulator's clock: each POST ${rt.sim.url}/_sim/clock/advance runs a cycle; quota ${rt.quota} requests / 60 s`
      : `  polling         every ${rt.pollIntervalMs} ms, quota ${rt.quota} requests / 60 s`,
    `  cadences        services every ${formatDuration(rt.runtime.pollingConfig.servicesIntervalMs)}, map every ${formatDuration(rt.runtime.pollingConfig.mapIntervalMs)}; webhook retries ${rt.retrySchedule}`,
    `  enrolled        ${rt.enrolled.length} user(s) through OAuth`,
    ...(options.receiverUrl
      ? [`  demo receiver   ${options.receiverUrl}   (subscribed to every event, verifies signatures)`]
      : []),
    // A token the user supplied is theirs: never echoed (terminals are logged, shared, recorded).
    options.generatedToken
      ? `  admin token     ${rt.adminToken}   (generated; set CARHOOK_ADMIN_TOKEN to choose it)`
      : '  admin token     from the environment (CARHOOK_ADMIN_TOKEN)',
    '',
    options.generatedToken
      ? `  export CARHOOK_URL=${rt.apiUrl} CARHOOK_ADMIN_TOKEN=${rt.adminToken}`
      : `  export CARHOOK_URL=${rt.apiUrl}`,
    '  npx carhook subscriptions add --url http://127.0.0.1:9000/webhooks   # then: npx carhook receiver --secret whsec_…',
    '',
    'Ready. Ctrl-C to stop.',
    '',
  ];
  return lines.join('\n');
}
