/**
 * `npm run sim -- --port 4010 --vehicles 20 --seed 1 [--activity] [--quota N] [--host H]`
 * Starts the Connected Car API simulator on a real-time world clock and prints how to use it.
 */
import { DEFAULT_CLIENT } from './auth/clients';
import { parseArgs, USAGE } from './cli';
import { SimulatorStartError, startSimulator } from './index';
import { BRANDS } from './world/catalog';

async function main(): Promise<void> {
  const parsed = parseArgs(process.argv.slice(2));
  if (!parsed.ok) {
    console.error(`sim: ${parsed.message}`);
    process.exit(2);
  }
  const o = parsed.value;
  if (o.help) {
    console.log(USAGE);
    return;
  }
  const started = performance.now();
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    sim = await startSimulator({
      port: o.port,
      host: o.host,
      vehicles: o.vehicles,
      seed: o.seed,
      activity: o.activity,
      clock: o.clock,
      quota: { limit: o.quota, windowSeconds: o.quotaWindow },
      accessTokenTtlSeconds: o.tokenTtl,
    });
  } catch (err) {
    console.error(`sim: ${err instanceof SimulatorStartError ? err.message : String(err)}`);
    process.exit(1);
  }
  const ms = Math.round(performance.now() - started);
  const users = sim.world.users();
  const firstUser = users[0];
  const brand = firstUser ? BRANDS[firstUser.brand] : BRANDS.C;
  const redirect = 'http://127.0.0.1:8080/callback';
  const authorize = `${sim.authUrl}/accounts/signin/v1/${brand.authSegment}/oauth2/authorize?response_type=code&scope=public&client_id=${DEFAULT_CLIENT.clientId}&redirect_uri=${encodeURIComponent(redirect)}&state=xyz`;
  console.log(`Connected Car API simulator listening on ${sim.url} (started in ${ms} ms)`);
  console.log(
    `  world: ${sim.world.vehicleCount} vehicles, ${users.length} users, seed ${sim.world.seed}, ${o.clock} clock${o.activity ? ', background activity' : ''}`,
  );
  console.log(
    `  client_id: ${sim.clientId}   client_secret: ${sim.clientSecret}   quota: ${o.quota}/${o.quotaWindow}s`,
  );
  console.log(`  sign in (browser): ${authorize}`);
  console.log('  then exchange the code:');
  console.log(
    `    curl -s -u ${sim.clientId}:${sim.clientSecret} -d grant_type=authorization_code -d code=CODE --data-urlencode redirect_uri=${redirect} ${sim.authUrl}/accounts/signin/v1/${brand.authSegment}/oauth2/token`,
  );
  if (firstUser) {
    console.log('  or skip the browser and try a v2 call:');
    console.log(
      `    TOKEN=$(curl -s -X POST ${sim.url}/_sim/users/${firstUser.id}/tokens | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    );
    console.log(
      `    curl -s -H "Authorization: Bearer $TOKEN" "${sim.url}/connectedcar/v2/vehicles?client_id=${sim.clientId}"`,
    );
  }
  console.log(`  control API: ${sim.url}/_sim/world  (see sim/README.md)   Ctrl-C to stop`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(130);
    stopping = true;
    console.log('\nsim: stopping');
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
