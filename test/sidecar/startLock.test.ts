import assert from 'node:assert/strict';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
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
