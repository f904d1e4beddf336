/**
 * Looking at a running `carhook dev` from the outside, as an operating system (and a neighbour)
 * sees it: listening sockets from /proc/net/tcp{,6}, a process's RSS from /proc/<pid>/status, its
 * children from /proc, and an HTTP client that can stream a body of any size.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';

export interface Listener {
  /** `127.0.0.1`, `0.0.0.0`, `::`, `::ffff:127.0.0.1`… */
  readonly address: string;
  readonly port: number;
}

function ipv4FromHex(hex: string): string {
  // /proc prints the address as a little-endian 32-bit number.
  const bytes = hex.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? [];
  return bytes.reverse().join('.');
}

function ipv6FromHex(hex: string): string {
  // Four little-endian 32-bit words.
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) => (w.match(/../g) ?? []).reverse());
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(`${bytes[i]}${bytes[i + 1]}`.toLowerCase());
  const full = groups.join(':');
  if (full === '0000:0000:0000:0000:0000:0000:0000:0000') return '::';
  if (full.startsWith('0000:0000:0000:0000:0000:ffff:')) {
    const v4 = bytes.slice(12).map((b) => Number.parseInt(b, 16));
    return `::ffff:${v4.join('.')}`;
  }
  if (full === '0000:0000:0000:0000:0000:0000:0000:0001') return '::1';
  return full;
}

/** Every TCP socket in LISTEN state (st 0A) on this machine's network namespace. */
export function listeners(): Listener[] {
  const out: Listener[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== '0A') continue;
      const [addressHex = '', portHex = '0'] = (fields[1] ?? '').split(':');
      out.push({
        address: v6 ? ipv6FromHex(addressHex) : ipv4FromHex(addressHex),
        port: Number.parseInt(portHex, 16),
      });
    }
  }
  return out;
}

/** Resident set size of a process, in bytes (VmRSS). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kb ?? 0) * 1024;
}

/** The direct children of a process (from /proc/<pid>/stat's ppid field). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\u0000', ' ');
  } catch {
    return '';
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface StreamResult {
  readonly status: number;
  readonly body: string;
  /** Bytes the client managed to write before the answer came (or the socket closed). */
  readonly written: number;
}

/**
 * POSTs a chunked body of up to `totalBytes` (one reused 64 KB chunk, so the client itself holds
 * no more than that), stopping as soon as the server answers.
 */
export function streamChunked(
  url: string,
  totalBytes: number,
  headers: Record<string, string>,
): Promise<StreamResult> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    let answered = false;
    const req = http.request(url, {
      method: 'POST',
      headers: { ...headers, 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8'), written });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    // Writes a chunk of whitespace at a time (valid JSON padding), respecting backpressure.
    const pump = () => {
      while (!answered && written < totalBytes) {
        written += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    req.write('{"pad":"');
    pump();
  });
}
