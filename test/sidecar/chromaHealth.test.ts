import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChromaSupervisor } from '../../sidecar/store/chromaServer';
import { cleanupDataDir, tempDataDir } from '../support/sidecarSession';

// The audit: after Chroma "crashed too often", the status kept saying so while the store worked again.
test(
  '"crashed too often" is cleared once a later request brings the store back',
  { timeout: 120_000 },
  async () => {
    const dataDir = tempDataDir();
    const reports: Array<[boolean, string]> = [];
    const sup = new ChromaSupervisor({ dataDir, maxRestarts: 0, onHealth: (ok, m) => reports.push([ok, m]) });
    try {
      await sup.ensure();
      const pid = sup.childPid!;
      process.kill(pid, 'SIGKILL');
      const deadline = Date.now() + 30_000;
      while (!reports.some(([ok, m]) => !ok && /crashed too often/.test(m)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      assert.ok(
        reports.some(([ok, m]) => !ok && /crashed too often/.test(m)),
        'no automatic restart beyond the limit',
      );
      await sup.ensure(); // a request (the next recall, a CLI command) starts it again
      assert.deepEqual(reports[reports.length - 1], [true, 'The embedded Chroma server is running again.']);
    } finally {
      await sup.stop();
      cleanupDataDir(dataDir);
    }
  },
);
