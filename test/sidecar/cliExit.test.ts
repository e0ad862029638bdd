import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RememberRequest } from '../../sidecar/protocol';
import { pidAlive } from '../../sidecar/util/process';
import {
  CLI_JS,
  SidecarSession,
  chromaServers,
  TEST_MODEL,
  cleanupDataDir,
  tempDataDir,
  testConfig,
  testModelPath,
} from '../support/sidecarSession';

// The audit saw `show`, `list` and `stats` print their result and then hang (1 of 30, 1 of 25, 3 of 25):
// the background model load called ensure() after dispose() had stopped Chroma and started a second
// server, which kept the CLI alive; killing the hung CLI left orphaned servers on the data folder.

/** Every Chroma server running on this data folder (isolated or not), from /proc. */
const EXIT_BOUND_MS = 45_000;

/** Runs the CLI; resolves with its output, or with `hung: true` if it had not exited within the bound. */
function cli(
  dataDir: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; hung: boolean }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI_JS, ...args], {
      env: {
        ...process.env,
        MNEMO_DATA_DIR: dataDir,
        MNEMO_EMBEDDING_MODEL: TEST_MODEL,
        MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
        MNEMO_DEBUG: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let hung = false;
    const t = setTimeout(() => {
      hung = true;
      p.kill('SIGKILL');
    }, EXIT_BOUND_MS);
    p.once('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr, hung });
    });
  });
}

let dataDir: string;
let memoryId: string;

before(async () => {
  dataDir = tempDataDir();
  const transcript = join(dataDir, 'session.json');
  writeFileSync(
    transcript,
    JSON.stringify([
      {
        role: 'user',
        content: 'We set the request timeout of the billing API to 1500 ms because the upstream is slow.',
      },
      { role: 'assistant', content: 'Noted: the billing API request timeout is 1500 ms.' },
      { role: 'user', content: 'The Postgres database for billing listens on port 6432 behind pgbouncer.' },
    ]),
  );
  const r = await cli(dataDir, ['ingest', '--project', 'p', transcript]);
  assert.equal(r.code, 0, r.stderr);
  memoryId = /mem_[0-9a-f]{16}/.exec(r.stdout)![0];
});

after(() => {
  for (const pid of chromaServers(dataDir)) process.kill(pid, 'SIGKILL');
  cleanupDataDir(dataDir);
});

test(
  '30 short CLI runs (show, list, stats) each print, exit on their own and leave no Chroma server behind',
  { timeout: 30 * EXIT_BOUND_MS },
  async () => {
    const runs = [['show', memoryId], ['list', '--project', 'p'], ['stats']];
    let hangs = 0;
    for (let i = 0; i < 30; i++) {
      const args = runs[i % runs.length]!;
      const r = await cli(dataDir, args);
      if (r.hung) hangs++;
      assert.equal(
        r.hung,
        false,
        `mnemo ${args.join(' ')} (run ${i + 1}) did not exit within ${EXIT_BOUND_MS / 1000} s`,
      );
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.trim().length > 0, 'it printed its result');
      assert.deepEqual(chromaServers(dataDir), [], `no Chroma server left after run ${i + 1}`);
    }
    console.log(`cliExit: 30 runs, ${hangs} hangs, 0 Chroma servers left`);
  },
);

test(
  'a Chroma server orphaned by a kill -9 is stopped by the next CLI run, which leaves none behind',
  { timeout: 120_000 },
  async () => {
    const s = await SidecarSession.start(testConfig(dataDir));
    await s.request(RememberRequest, {
      text: 'The staging cluster runs Kubernetes 1.29 on three nodes.',
      project_id: 'p',
    });
    const orphan = s.chromaPid();
    await s.kill9();
    assert.ok(pidAlive(orphan), 'the sidecar died, its Chroma server lives on');

    const r = await cli(dataDir, ['list', '--project', 'p']);
    assert.equal(r.hung, false);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Kubernetes 1\.29/);
    assert.deepEqual(chromaServers(dataDir), [], 'the orphaned server was stopped, and the fresh one too');
  },
);
