import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RecallRequest, RememberRequest } from '../../sidecar/protocol';
import { isolationAvailable } from '../../sidecar/store/isolation';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

// The audit: any local process or user (uid nobody too) read every memory from the embedded Chroma
// server and wrote a forged "confirmed" memory that recall served at confidence 1.00; the Host header
// was not checked; chroma.sqlite3 and the logs were 0644 in 0755 folders. Chroma 1.0.5 ignores its auth
// settings, so Mnemo runs it in a private network namespace, reachable only through a 0700 Unix socket
// that the sidecar sends its requests to (sidecar/store/socketFetch.ts): no TCP port at all.

const iso = isolationAvailable();
const skip = iso.ok ? false : `Chroma cannot be isolated here: ${iso.reason}`;
if (skip) console.log(`storeAuth: skipped, ${skip}`);

let dataDir: string;
let s: SidecarSession;

/** The TCP ports a process listens on (its sockets in LISTEN state, IPv4 and IPv6). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter((x): x is string => !!x),
  );
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6'])
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && inodes.has(f[9]!)) ports.push(parseInt(f[1]!.split(':')[1]!, 16));
    }
  return ports;
}

before(async () => {
  if (skip) return;
  dataDir = tempDataDir();
  s = await SidecarSession.start(testConfig(dataDir));
  await s.request(RememberRequest, {
    text: 'The payroll database password rotates every 30 days.',
    project_id: 'p',
  });
});

after(async () => {
  if (skip) return;
  await s.stop();
  cleanupDataDir(dataDir);
});

test('the sidecar listens on no TCP port: it reaches the store through the socket', { skip }, () => {
  assert.deepEqual(listeningPorts(s.proc.pid!), [], 'the sidecar has no listening TCP socket');
  assert.match(readFileSync(join(dataDir, 'logs', 'sidecar.log'), 'utf8'), /reachable only through/);
});

test(
  'Chroma listens on no port of the host: it lives in its own network namespace, reachable only by its 0700 socket',
  { skip },
  () => {
    const pid = s.chromaPid();
    assert.notEqual(
      readlinkSync(`/proc/${pid}/ns/net`),
      readlinkSync('/proc/self/ns/net'),
      'Chroma runs in a private network namespace',
    );
    const info = JSON.parse(readFileSync(join(dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as {
      port?: number;
      socket?: string;
    };
    assert.equal(info.port, undefined, 'no TCP port is published');
    assert.ok(statSync(info.socket!).isSocket(), 'the socket is inside the 0700 chroma/ folder');
    assert.equal(statSync(join(dataDir, 'chroma')).mode & 0o777, 0o700, 'chroma/ is 0700');
    assert.equal(statSync(dataDir).mode & 0o777, 0o700, 'the data folder is 0700');
    assert.equal(
      statSync(join(dataDir, 'chroma', 'chroma.sqlite3')).mode & 0o077,
      0,
      'chroma.sqlite3 is readable by its owner only',
    );
    assert.equal(
      statSync(join(dataDir, 'logs', 'chroma.log')).mode & 0o077,
      0,
      'chroma.log is readable by its owner only',
    );
  },
);

test(
  'another local user (nobody) cannot open the socket',
  { skip: skip || (process.getuid?.() !== 0 && 'needs root to run as uid nobody') },
  () => {
    const info = JSON.parse(readFileSync(join(dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as {
      socket: string;
    };
    const script = `
    const http = require('node:http');
    const q = http.request({ socketPath: ${JSON.stringify(info.socket)}, path: '/api/v2/heartbeat', headers: { host: 'localhost' } }, (res) => { res.resume(); console.log(String(res.statusCode)); });
    q.on('error', (e) => console.log(e.code));
    q.end();`;
    const r = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script],
      { encoding: 'utf8', timeout: 20_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const sock = r.stdout.trim();
    assert.ok(sock === 'EACCES' || sock === 'ENOENT', `the socket refused uid nobody (${sock})`);
  },
);

test('through the socket, the sidecar itself still works (recall finds the memory)', { skip }, async () => {
  const r = await s.request(RecallRequest, { query: 'payroll password rotation', project_ids: ['p'] });
  assert.match(JSON.stringify(r), /rotates every 30 days/);
});
