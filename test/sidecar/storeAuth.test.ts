import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RecallRequest, RememberRequest } from '../../sidecar/protocol';
import { isolationAvailable } from '../../sidecar/store/isolation';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

// The audit: any local process or user (uid nobody too) read every memory from the embedded Chroma
// server and wrote a forged "confirmed" memory that recall served at confidence 1.00; the Host header
// was not checked; chroma.sqlite3 and the logs were 0644 in 0755 folders. Chroma 1.0.5 ignores its auth
// settings, so Mnemo runs it in a private network namespace behind an authenticating front.

const iso = isolationAvailable();
const skip = iso.ok ? false : `Chroma cannot be isolated here: ${iso.reason}`;
if (skip) console.log(`storeAuth: skipped, ${skip}`);

const COLLECTIONS = '/api/v2/tenants/default_tenant/databases/default_database/collections';

let dataDir: string;
let s: SidecarSession;
let front: number;

/** The front's port, from this process's view of the sidecar's listening sockets. */
function frontPort(pid: number): number {
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
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[3] === '0A' && inodes.has(f[9]!) && f[1]!.startsWith('0100007F:'))
      return parseInt(f[1]!.split(':')[1]!, 16);
  }
  throw new Error('the sidecar listens on no loopback port');
}

before(async () => {
  if (skip) return;
  dataDir = tempDataDir();
  s = await SidecarSession.start(testConfig(dataDir));
  await s.request(RememberRequest, {
    text: 'The payroll database password rotates every 30 days.',
    project_id: 'p',
  });
  front = frontPort(s.proc.pid!);
});

after(async () => {
  if (skip) return;
  await s.stop();
  cleanupDataDir(dataDir);
});

test(
  'an unauthenticated or wrongly authenticated request to the store is refused (401)',
  { skip },
  async () => {
    const none = await fetch(`http://127.0.0.1:${front}${COLLECTIONS}`);
    assert.equal(none.status, 401);
    const wrong = await fetch(`http://127.0.0.1:${front}${COLLECTIONS}`, {
      method: 'POST',
      headers: { 'x-chroma-token': 'guess', 'content-type': 'application/json' },
      body: '{"name":"forged"}',
    });
    assert.equal(wrong.status, 401);
    const bearer = await fetch(`http://127.0.0.1:${front}${COLLECTIONS}`, {
      headers: { authorization: 'Bearer guess' },
    });
    assert.equal(bearer.status, 401);
    assert.doesNotMatch(await none.text(), /payroll/);
  },
);

test('a request with a foreign Host header is refused (403: DNS rebinding)', { skip }, async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: front, path: COLLECTIONS, headers: { host: `evil.example:${front}` } },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on('error', reject);
    req.end();
  });
  assert.equal(status, 403);
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
  'another local user (nobody) can neither open the socket nor pass the front',
  { skip: skip || (process.getuid?.() !== 0 && 'needs root to run as uid nobody') },
  () => {
    const info = JSON.parse(readFileSync(join(dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as {
      socket: string;
    };
    const script = `
    const http = require('node:http');
    const ask = (o) => new Promise((r) => { const q = http.request(o, (res) => { res.resume(); r(String(res.statusCode)); }); q.on('error', (e) => r(e.code)); q.end(); });
    (async () => {
      const sock = await ask({ socketPath: ${JSON.stringify(info.socket)}, path: '/api/v2/heartbeat', headers: { host: 'localhost' } });
      const front = await ask({ host: '127.0.0.1', port: ${front}, path: ${JSON.stringify(COLLECTIONS)} });
      console.log(sock + ' ' + front);
    })();`;
    const r = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script],
      { encoding: 'utf8', timeout: 20_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const [sock, frontStatus] = r.stdout.trim().split(' ');
    assert.ok(sock === 'EACCES' || sock === 'ENOENT', `the socket refused uid nobody (${sock})`);
    assert.equal(frontStatus, '401', 'the front refused uid nobody');
  },
);

test(
  'through the front, with the token, the sidecar itself still works (recall finds the memory)',
  { skip },
  async () => {
    const r = await s.request(RecallRequest, { query: 'payroll password rotation', project_ids: ['p'] });
    assert.match(JSON.stringify(r), /rotates every 30 days/);
  },
);
