/**
 * DNS for webhooks, the IO side of the SSRF policy (functions/core/webhooks/ssrf.ts): getaddrinfo
 * as the resolver, and the connect-time guarded lookup that hands a socket only the addresses the
 * policy checked, so nothing can rebind the name between the check and the connect.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import {
  type AllowList,
  GuardedLookupError,
  type ResolvedAddress,
  type Resolver,
  resolveChecked,
} from '../../core/webhooks/ssrf';

/** getaddrinfo, as the HTTP stack would use it (hosts file included), every address. */
export const systemResolver: Resolver = async (hostname) => {
  const all = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * A `lookup` for `http.request` / `net.connect`: resolves with the injected resolver, checks every
 * address (with the port the request goes to, when given) and hands the socket only the addresses
 * it checked. The socket connects to exactly what
 * was validated, with no second resolution in between, which is what defeats DNS rebinding.
 */
export function guardedLookup(resolve: Resolver, allowList?: AllowList, port?: number): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options === 'object' && options ? options.family : undefined;
    const all = typeof options === 'object' && options ? options.all === true : false;
    resolveChecked(hostname, resolve, allowList, port).then(
      (result) => {
        if (!result.ok) {
          callback(new GuardedLookupError(result.error) as NodeJS.ErrnoException, '', 0);
          return;
        }
        const wanted =
          family === 4 || family === 6 ? result.value.filter((a) => a.family === family) : result.value;
        const addresses = wanted.length > 0 ? wanted : result.value;
        if (all) {
          // node's typings model only the single-address callback; with `all` it takes a list.
          (callback as unknown as (e: null, a: LookupAddress[]) => void)(
            null,
            addresses.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          const first = addresses[0] as ResolvedAddress;
          callback(null, first.address, first.family);
        }
      },
      (cause: unknown) => callback(cause as NodeJS.ErrnoException, '', 0),
    );
  };
}
