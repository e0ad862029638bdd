import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { isolationAvailable } from '../../sidecar/store/isolation';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';
import { filesUnder, killChromaServers } from './support';

// Issue 39, item 4: where the private network namespace was not used, Chroma was open again on 127.0.0.1
// with no token, and another user read the memories and wrote a confirmed one (chroma.sqlite3 was 0644).
// The audit's first way there was the extension's own: a data folder whose socket path is over 100 bytes.
const iso = isolationAvailable();
const roots: string[] = [];
after(() => {
  for (const r of roots) {
    killChromaServers(r);
    cleanupDataDir(r);
  }
});

function dataFolder(prefix: string, longPath = false): string {
  const root = tempDataDir(prefix);
  roots.push(root);
  if (!longPath) return root;
  // As under a VS Code Insiders profile of a firstname.lastname user: the socket path passes 100 bytes.
  const dir = join(
    root,
    'firstname.lastname',
    '.vscode-server-insiders',
    'data',
    'User',
    'globalStorage',
    'mnemo.mnemo',
  );
  mkdirSync(dir, { recursive: true });
  assert.ok(Buffer.byteLength(join(dir, 'chroma', 'mnemo-chroma.sock')) > 100);
  return dir;
}

const remember = (s: SidecarSession, project: string) =>
  s.request(P.RememberRequest, {
    text: 'The payroll export runs at 02:00 every night.',
    project_id: project,
  });

test(
  'a data folder too long for a Unix socket keeps Chroma isolated, its socket in a short private folder',
  { timeout: 3 * 60_000, skip: iso.ok ? false : `Chroma cannot be isolated here: ${iso.ok || iso.reason}` },
  async () => {
    const dataDir = dataFolder('mnemo-rel-longsock-', true);
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      await remember(s, 'long');
      const stats = await s.request(P.StatsRequest, {});
      assert.match(stats.chroma, /private network namespace/);
      assert.doesNotMatch(stats.chroma, /not isolated/);
      const server = JSON.parse(readFileSync(join(dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as {
        pid: number;
        socket?: string;
        port?: number;
      };
      assert.equal(server.port, undefined, 'no TCP port');
      assert.ok(server.socket && Buffer.byteLength(server.socket) <= 100, server.socket);
      const folder = statSync(dirname(server.socket));
      assert.equal(folder.mode & 0o777, 0o700, 'the socket folder is private');
      assert.equal(folder.uid, process.getuid!());
      // Chroma lives in a network namespace of its own: no port of this one leads to it.
      assert.notEqual(readlinkSync(`/proc/${server.pid}/ns/net`), readlinkSync('/proc/self/ns/net'));
      const recalled = await s.request(P.RecallRequest, {
        query: 'when does the payroll export run',
        project_ids: ['long'],
      });
      assert.match(recalled.block, /02:00/);
    } finally {
      await s.stop();
    }
  },
);

test(
  'where Chroma cannot be isolated it is not started, and the status says why',
  { timeout: 3 * 60_000 },
  async () => {
    const dataDir = dataFolder('mnemo-rel-noiso-');
    // No unshare on the PATH: as on a machine without it (macOS, Windows, a minimal container).
    const s = await SidecarSession.start(testConfig(dataDir), { PATH: '/nonexistent' });
    try {
      await assert.rejects(remember(s, 'open'), (e: { code?: number; message?: string }) => {
        assert.equal(e.code, P.ErrorCodes.StoreUnavailable);
        assert.match(
          e.message ?? '',
          /cannot be isolated from other local users here \(unshare could not run/,
        );
        assert.match(e.message ?? '', /mnemo\.chroma\.allowUnisolated/);
        return true;
      });
      const status = await s.waitFor('an error status', () => s.statuses.find((st) => st.health === 'error'));
      assert.match(status.message, /cannot be isolated/);
    } finally {
      await s.stop();
    }
  },
);

test(
  'allowed to run unisolated, Chroma says "not isolated" in stats and the status, and its files are 0600',
  { timeout: 3 * 60_000 },
  async () => {
    const dataDir = dataFolder('mnemo-rel-unisolated-');
    const config = testConfig(dataDir, { chromaAllowUnisolated: true });
    let s = await SidecarSession.start(config, { PATH: '/nonexistent' });
    try {
      await remember(s, 'open');
      assert.match(
        (await s.request(P.StatsRequest, {})).chroma,
        /127\.0\.0\.1:\d+, not isolated from other local users: unshare could not run/,
      );
      const status = await s.waitFor('a "not isolated" status', () =>
        s.statuses.find((st) => /not isolated/.test(st.message)),
      );
      assert.equal(status.health, 'warning');
    } finally {
      await s.stop();
    }
    // A store an earlier version left readable by others is closed at the next start.
    const db = join(dataDir, 'chroma', 'chroma.sqlite3');
    chmodSync(db, 0o644);
    s = await SidecarSession.start(config, { PATH: '/nonexistent' });
    try {
      await s.request(P.StatsRequest, {});
      const open = [...filesUnder(join(dataDir, 'chroma'))].filter((f) => (statSync(f).mode & 0o077) !== 0);
      assert.deepEqual(open, [], 'every file of the store is owner-only');
    } finally {
      await s.stop();
    }
  },
);
