/**
 * The rehearsal's TLS certificate for 127.0.0.1 (a self-signed one, made with the `openssl` command
 * for this run): the webhook endpoints serve it, and the functions trust it through
 * `NODE_EXTRA_CA_CERTS`, which Node reads at start-up, so their HTTPS checks run unchanged.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface TlsMaterial {
  readonly key: string;
  readonly cert: string;
  /** The certificate's file, for `NODE_EXTRA_CA_CERTS`. */
  readonly certFile: string;
}

export async function loopbackCertificate(dir: string): Promise<TlsMaterial> {
  const keyFile = join(dir, 'loopback.key.pem');
  const certFile = join(dir, 'loopback.cert.pem');
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new Error(
      e.code === 'ENOENT'
        ? 'openssl is not on the PATH: the rehearsal makes its test certificate with it (Debian: apt-get install openssl)'
        : `openssl could not make the test certificate: ${e.message}`,
    );
  }
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}
