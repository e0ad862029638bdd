import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openCaptureQueue } from '../../sidecar/queue';
import { readLock, tryLock, unlock } from '../../sidecar/util/fileLock';
import { ChromaSupervisor, heartbeat } from '../../sidecar/store/chromaServer';
import { socketHeartbeat } from '../../sidecar/store/isolation';
import { cleanupDataDir, tempDataDir } from '../support/sidecarSession';

// After ENOSPC the start lock was left 0 bytes long, read as pid 0, and pidAlive(0) is true (kill(0, 0)
// signals our own process group): every later command waited 60 s and failed until someone deleted it.
for (const content of ['', '0', '-1', 'garbage']) {
  test(
    `a start lock holding ${JSON.stringify(content)} is stale: Chroma starts instead of a 60 s lockout`,
    { timeout: 50_000 },
    async () => {
      const dataDir = tempDataDir();
      const lock = join(dataDir, 'chroma', 'mnemo-start.lock');
      mkdirSync(join(dataDir, 'chroma'), { recursive: true });
      writeFileSync(lock, content);
      const old = new Date(Date.now() - 10_000);
      utimesSync(lock, old, old);
      const sup = new ChromaSupervisor({ dataDir });
      try {
        const ep = await sup.ensure();
        assert.ok(
          ep.socketPath ? await socketHeartbeat(ep.socketPath) : await heartbeat(ep.host, ep.port),
          'the server answers',
        );
        assert.ok(sup.childPid, 'this process started the server');
        assert.equal(existsSync(lock), false, 'the lock is released after the start');
      } finally {
        await sup.stop();
        cleanupDataDir(dataDir);
      }
    },
  );
}

/** A live process that started just now: its pid stands for a dead owner's, reused (issue 39, item 14). */
async function stranger(): Promise<{ pid: number; stop: () => void }> {
  const p = spawn('sleep', ['120'], { stdio: 'ignore' });
  await new Promise((r) => p.once('spawn', r));
  return { pid: p.pid!, stop: () => p.kill('SIGKILL') };
}

/** Dates a file 10 s back: written before the stranger started. */
function written10sAgo(file: string): void {
  const old = new Date(Date.now() - 10_000);
  utimesSync(file, old, old);
}

test(
  'a start lock holding a reused live pid is stale: Chroma starts instead of a 60 s lockout',
  { timeout: 50_000 },
  async () => {
    const dataDir = tempDataDir();
    const lock = join(dataDir, 'chroma', 'mnemo-start.lock');
    mkdirSync(join(dataDir, 'chroma'), { recursive: true });
    const s = await stranger();
    writeFileSync(lock, String(s.pid));
    written10sAgo(lock);
    const sup = new ChromaSupervisor({ dataDir });
    try {
      const ep = await sup.ensure();
      assert.ok(ep.socketPath ? await socketHeartbeat(ep.socketPath) : await heartbeat(ep.host, ep.port));
      assert.ok(sup.childPid, 'this process started the server');
    } finally {
      s.stop();
      await sup.stop();
      cleanupDataDir(dataDir);
    }
  },
);

test(
  'a data-folder lock and a capture queue named after a reused pid are taken over',
  { timeout: 30_000 },
  async () => {
    const dataDir = tempDataDir();
    const s = await stranger();
    try {
      const writeLock = join(dataDir, 'write.lock');
      writeFileSync(writeLock, String(s.pid));
      written10sAgo(writeLock);
      assert.equal(tryLock(writeLock), true, 'the lock is this process’s now');
      assert.equal(readLock(writeLock)?.pid, process.pid);
      unlock(writeLock);
      // The queue of a crashed sidecar whose pid is someone else's now: its captures are adopted, not stranded.
      mkdirSync(join(dataDir, 'queue'));
      const orphan = join(dataDir, 'queue', `capture-${s.pid}.jsonl`);
      const entry = { op: 'add', id: 'stranded', at: new Date().toISOString(), payload: { n: 1 } };
      writeFileSync(orphan, JSON.stringify(entry) + '\n');
      written10sAgo(orphan);
      const q = openCaptureQueue<{ n: number }>(join(dataDir, 'queue'));
      try {
        assert.deepEqual(
          q.pending().map((e) => e.id),
          ['stranded'],
        );
        assert.equal(existsSync(orphan), false);
      } finally {
        q.close();
      }
    } finally {
      s.stop();
      cleanupDataDir(dataDir);
    }
  },
);
