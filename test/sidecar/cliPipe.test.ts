/**
 * The CLI in a pipeline whose reader stops early (`mnemo recall … | head -3`): it must finish and
 * exit quietly, never die with an unhandled EPIPE and a stack trace.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  CLI_JS,
  REPO,
  TEST_MODEL,
  cleanupDataDir,
  tempDataDir,
  testModelPath,
} from '../support/sidecarSession';

let dataDir: string;
let env: NodeJS.ProcessEnv;

/** Runs `mnemo ARGS | READER` in bash; returns the CLI's own exit status and its stderr. */
function piped(args: string[], reader: string): { status: number; stderr: string } {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync(
    'bash',
    ['-c', `"$MNEMO_CLI" ${quoted} 2>"$ERR_FILE" | ${reader}; echo "\${PIPESTATUS[0]}"`],
    {
      env: { ...env, MNEMO_CLI: CLI_JS, ERR_FILE: join(dataDir, 'stderr.txt') },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  assert.equal(r.error, undefined, `the pipeline did not finish: ${r.error?.message}`);
  const stderr = spawnSync('cat', [join(dataDir, 'stderr.txt')], { encoding: 'utf8' }).stdout;
  return { status: Number(r.stdout.trim().split('\n').pop()), stderr };
}

before(() => {
  dataDir = tempDataDir('mnemo-cli-pipe-');
  env = {
    ...process.env,
    MNEMO_DATA_DIR: join(dataDir, 'data'),
    MNEMO_EMBEDDING_MODEL: TEST_MODEL,
    MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
  };
  const r = spawnSync(
    CLI_JS,
    ['ingest', '--project', 'pipe', join(REPO, 'samples', 'sessions', 'plc-troubleshooting.json')],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(r.status, 0, r.stderr);
});

after(() => cleanupDataDir(dataDir));

for (const [name, args] of [
  ['recall --json', ['recall', '--project', 'pipe', '--json', 'PLC timeout']],
  ['recall', ['recall', '--project', 'pipe', 'PLC timeout']],
  ['list', ['list', '--project', 'pipe']],
  ['stats --json', ['stats', '--json']],
] as const) {
  test(`mnemo ${name} exits quietly when its reader has gone (| true)`, () => {
    // `true` closes the pipe before the CLI has printed anything: every write meets EPIPE.
    const r = piped([...args], 'true');
    assert.equal(r.status, 0, `exit status ${r.status}; stderr:\n${r.stderr}`);
    assert.doesNotMatch(r.stderr, /EPIPE|Unhandled|\n\s+at /, r.stderr);
  });
}

test('mnemo recall --json | head -1 prints the first line and exits quietly', () => {
  const r = piped(['recall', '--project', 'pipe', '--json', 'PLC timeout'], 'head -1 >/dev/null');
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /EPIPE|Unhandled|\n\s+at /, r.stderr);
});
