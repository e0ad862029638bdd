/**
 * The embedding worker crashing again and again while a capture waits: the capture stays queued (a
 * warning in the log, never "dropped"), and once the worker stays up it is processed and stored.
 * Real sidecar, real worker process, killed with SIGKILL.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

/** Pids of the embedding worker processes the sidecar runs (its children started from embedWorker.js). */
function embedWorkers(sidecarPid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== sidecarPid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('embedWorker')) out.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

describe('embedding worker crash', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanupDataDir));

  test('a worker killed on every attempt never drops a queued capture; it is stored once the worker stays up', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const s = await SidecarSession.start(testConfig(dataDir));
    let killer: NodeJS.Timeout | undefined;
    try {
      // The model is up: a remembered fact needs it.
      await s.request(P.RememberRequest, {
        text: 'Grafana alerts go to the #ops-oncall Slack channel',
        project_id: 'crashy',
      });
      assert.ok(
        embedWorkers(s.proc.pid!).length > 0,
        'the embedding worker runs as a child process of the sidecar',
      );

      // From now on every embedding worker is killed as soon as it appears.
      let kills = 0;
      killer = setInterval(() => {
        for (const pid of embedWorkers(s.proc.pid!)) {
          try {
            process.kill(pid, 'SIGKILL');
            kills++;
          } catch {
            // already gone
          }
        }
      }, 10);
      const fact = 'We decided to set the PLC-3000 Modbus timeout to 1500 ms on the north line.';
      const r = await s.request(P.CaptureSessionRequest, {
        project_id: 'crashy',
        source_type: 'chat',
        messages: [
          { role: 'user', content: fact, id: 'u1' },
          {
            role: 'assistant',
            content: 'Noted: the PLC-3000 Modbus timeout on the north line is now 1500 ms.',
            id: 'a1',
          },
        ],
      });
      assert.ok(r.queue_id);
      // More attempts than the three after which a failing capture would be dropped.
      await s.waitFor(
        'four failed attempts to embed the capture',
        () => s.logs.filter((l) => /stays queued/.test(l.message)).length >= 4 && kills >= 4,
        90_000,
      );
      const queued = s.logs.filter((l) => /stays queued/.test(l.message));
      assert.ok(
        queued.every((l) => l.level === 'warn'),
        'a capture kept for later is a warning',
      );
      assert.ok(
        !s.logs.some((l) => /dropped after \d+ failed attempts/.test(l.message)),
        `a capture was dropped: ${s.logs.map((l) => l.message).join(' | ')}`,
      );
      clearInterval(killer);
      killer = undefined;

      const flushed = await s.request(P.FlushQueueRequest, { timeout_ms: 60_000 });
      assert.equal(flushed.remaining, 0, 'the queue drains once the worker stays up');
      const list = await s.request(P.ListRequest, { project_id: 'crashy' });
      const stored = list.items.filter((m) => /PLC-3000 Modbus timeout/.test(m.text));
      assert.equal(
        stored.length,
        1,
        `the captured fact is stored once; memories: ${list.items.map((m) => m.text).join(' | ')}`,
      );
      assert.ok(
        !s.logs.some((l) => /dropped after \d+ failed attempts/.test(l.message)),
        'nothing was dropped',
      );
    } finally {
      if (killer) clearInterval(killer);
      await s.stop();
    }
  });
});
