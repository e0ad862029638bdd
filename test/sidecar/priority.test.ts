/**
 * The processes the editor's sidecar runs as, in the real product (dist/sidecar.js with its Chroma and
 * embedding worker): below normal priority, so that learning from an import leaves the editor a core, and
 * with the malloc arenas each was measured best with (docs/benchmarks.md).
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as os from 'node:os';
import { after, before, test } from 'node:test';
import { RememberRequest } from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

let dataDir: string;
let s: SidecarSession;

/** The nice value of a process's main thread (field 19 of /proc/<pid>/stat). */
function nice(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}
const environ = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
function workerOf(pid: number): number {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('embedWorker'))
        return Number(d);
    } catch {
      // gone
    }
  }
  throw new Error('the sidecar has no embedding worker');
}

before(async () => {
  dataDir = tempDataDir();
  s = await SidecarSession.start(testConfig(dataDir));
  // The model is loaded: the worker runs.
  await s.request(RememberRequest, { text: 'The staging cluster runs Kubernetes 1.29.', project_id: 'p' });
});

after(async () => {
  await s.stop();
  cleanupDataDir(dataDir);
});

test('the sidecar, its Chroma and its embedding worker run below normal priority', () => {
  const mine = os.getPriority();
  assert.equal(nice(s.proc.pid!), Math.max(5, mine), 'the sidecar runs at nice 5');
  assert.ok(nice(s.chromaPid()) >= 5, `Chroma runs at nice ${nice(s.chromaPid())}`);
  assert.equal(nice(workerOf(s.proc.pid!)), Math.max(10, mine), 'the embedding worker runs at nice 10');
});

test('the sidecar and its worker run on two malloc arenas; Chroma on glibc’s default', () => {
  const want = `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}`;
  assert.ok(environ(s.proc.pid!).includes(want), 'the sidecar');
  assert.ok(environ(workerOf(s.proc.pid!)).includes(want), 'the worker');
  const chroma = environ(s.chromaPid()).filter((e) => e.startsWith('MALLOC_ARENA_MAX='));
  assert.deepEqual(chroma, process.env.MALLOC_ARENA_MAX ? [want] : [], 'Chroma');
});
