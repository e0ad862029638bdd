import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, ftruncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { readZipDirectory } from '../../sidecar/backup/zipReader';
import { craftBackup, craftedMemory, writeAesZip } from '../support/backupCraft';
import { CLI_JS, TEST_MODEL, cleanupDataDir, tempDataDir, testModelPath } from '../support/sidecarSession';
import { killChromaServers } from './support';

// Small-scale rerun of the audit's hostile-backup runs (issue 16 item 9): ZIP bombs that declare their
// size or lie about it, absurd entry counts, a file too large to be a backup, a device; each refused by
// the real CLI in one sentence with its peak RSS under 500 MB and nothing stored changed. A valid backup
// whose memories.jsonl inflates to 300 MB is read as a stream, never as one string.
const dataDir = tempDataDir('mnemo-rel-backup-');
const PASSWORD = 'hostile but known';
const RSS_LIMIT_MB = 500;
const preload = join(dataDir, 'maxrss.cjs');

after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident set of the CLI process (VmHWM), in MB. */
  rssMb: number;
}

/** Runs `mnemo` with the password on stdin; the preload writes the process's peak RSS at exit. */
function mnemo(args: string[]): Promise<Run> {
  const rssFile = join(dataDir, `rss-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--require', preload, CLI_JS, ...args, '--password-stdin'], {
      env: {
        ...process.env,
        MNEMO_DATA_DIR: dataDir,
        MNEMO_EMBEDDING_MODEL: TEST_MODEL,
        MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
        MNEMO_DEBUG: '',
        MNEMO_TEST_RSS_FILE: rssFile,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.stdin.end(PASSWORD + '\n');
    const t = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.once('exit', (code) => {
      clearTimeout(t);
      const kb = Number(readFileSync(rssFile, 'utf8'));
      resolve({ code, stdout, stderr, rssMb: kb / 1024 });
    });
  });
}

function oneSentence(stderr: string): void {
  // The CLI says when it starts loading the model (a status line, as manyMessages.test.ts allows): on a busy
  // machine the load begins before the backup is refused (a fresh-root run beside two others printed it).
  const lines = stderr
    .trim()
    .split('\n')
    .filter((l) => !/^Loading \S+$/.test(l));
  assert.equal(lines.length, 1, `one line: ${stderr}`);
  assert.match(lines[0]!, /^mnemo: [^\n]+[.?]$/);
  assert.doesNotMatch(stderr, /\n\s+at |E[A-Z]{3,}:/);
}

/** `n` MiB of one byte, produced piece by piece. */
function repeated(byte: string, mib: number): () => Readable {
  const chunk = Buffer.alloc(1024 * 1024, byte);
  return () =>
    Readable.from(
      (function* () {
        for (let i = 0; i < mib; i++) yield chunk;
      })(),
    );
}

/** A bomb: memories.jsonl of `mib` MiB without a line break; the manifest says `bytes` (default: honest). */
async function bomb(file: string, mib: number, bytes = mib * 1024 * 1024): Promise<string> {
  const manifest = {
    format: 'mnemo-backup',
    format_version: 1,
    created_at: '2026-11-02T08:00:00.000Z',
    created_by: 'x',
    project_id: null,
    projects: [],
    counts: { memories: 1, audit_entries: 0, vectors: 0, by_status: {} },
    embedding: { model: null, dim: null },
    vectors: { included: false, encoding: 'float32le-base64' },
    files: {
      'memories.jsonl': { sha256: '0'.repeat(64), bytes },
      'audit.jsonl': { sha256: '0'.repeat(64), bytes: 0 },
    },
  };
  await writeAesZip(
    file,
    PASSWORD,
    [
      { name: 'memories.jsonl', data: repeated('A', mib) },
      { name: 'audit.jsonl', data: '' },
      { name: 'manifest.json', data: JSON.stringify(manifest) },
    ],
    9,
  );
  return file;
}

/** A copy of an archive whose central directory says memories.jsonl inflates to `size` bytes. */
function declareSize(src: string, dst: string, size: number): string {
  const buf = readFileSync(src);
  const cd = buf.readUInt32LE(buf.length - 22 + 16);
  let p = cd;
  for (const e of readZipDirectory(buf)) {
    if (e.name === 'memories.jsonl') buf.writeUInt32LE(size, p + 24);
    p += 46 + buf.readUInt16LE(p + 28) + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
  }
  writeFileSync(dst, buf);
  return dst;
}

let storedBefore = '';

before(async () => {
  writeFileSync(
    preload,
    "process.on('exit', () => require('fs').writeFileSync(process.env.MNEMO_TEST_RSS_FILE, String(process.resourceUsage().maxRSS)));\n",
  );
  const seed = await craftBackup(join(dataDir, 'seed.zip'), PASSWORD, {
    memories: [
      craftedMemory('rel', 'The release branch is cut every second Tuesday'),
      craftedMemory('rel', 'Integration tests need the docker socket'),
    ],
  });
  const r = await mnemo(['import', seed, '--project', 'rel']);
  assert.equal(r.code, 0, r.stderr);
  storedBefore = (await mnemo(['list', '--project', 'rel', '--json'])).stdout;
  assert.match(storedBefore, /second Tuesday/);
});

test(
  'hostile backups: refused in one sentence, peak RSS under 500 MB, nothing stored changed',
  { timeout: 10 * 60_000 },
  async (t) => {
    const honest = await bomb(join(dataDir, 'bomb-1500m.zip'), 1500);
    const compressed = readFileSync(honest).length;
    assert.ok(compressed < 3 * 1024 * 1024, `a small file: ${compressed} bytes`);
    const lying = declareSize(
      await bomb(join(dataDir, 'bomb-600m.zip'), 600, 1000),
      join(dataDir, 'bomb-lying.zip'),
      1000,
    );
    const huge = declareSize(honest, join(dataDir, 'bomb-declares-3g.zip'), 3_000_000_000);
    const entries = join(dataDir, 'many-entries.zip');
    const eb = readFileSync(honest);
    eb.writeUInt16LE(60000, eb.length - 22 + 8);
    eb.writeUInt16LE(60000, eb.length - 22 + 10);
    writeFileSync(entries, eb);
    const sparse = join(dataDir, 'sparse-3g.zip');
    const fd = openSync(sparse, 'w');
    ftruncateSync(fd, 3 * 1024 * 1024 * 1024);
    closeSync(fd);

    const cases: [string, string, RegExp][] = [
      ['a bomb that inflates 1.5 GB into one line', honest, /longer than 1048576 characters/],
      ['a bomb that declares 1000 bytes', lying, /larger than a Mnemo backup may be/],
      ['a bomb that declares 3 GB', huge, /larger than a Mnemo backup may be/],
      ['60000 entries', entries, /larger than a Mnemo backup may be/],
      ['a 3 GB file', sparse, /larger than a Mnemo backup may be/],
      ['a device', '/dev/zero', /no backup file at \/dev\/zero/],
    ];
    for (const [what, file, message] of cases) {
      for (const args of [
        ['import', file, '--project', 'rel', '--dry-run'],
        ['import', file, '--project', 'rel', '--mode', 'overwrite', '--yes'],
      ]) {
        const r = await mnemo(args);
        t.diagnostic(
          `${what} (${args.includes('--dry-run') ? 'dry run' : 'import'}): peak RSS ${r.rssMb.toFixed(0)} MB`,
        );
        assert.equal(r.code, 1, `${what}: ${r.stderr}`);
        oneSentence(r.stderr);
        assert.match(r.stderr, message, what);
        assert.ok(r.rssMb < RSS_LIMIT_MB, `${what}: peak RSS ${r.rssMb.toFixed(0)} MB`);
      }
    }
    assert.equal(
      (await mnemo(['list', '--project', 'rel', '--json'])).stdout,
      storedBefore,
      'nothing stored changed',
    );
  },
);

test(
  'a valid backup whose memories.jsonl inflates to 300 MB is streamed, not read as one string',
  { timeout: 5 * 60_000 },
  async (t) => {
    const mem = [craftedMemory('rel', 'Staging deploys need the VPN')];
    const lines = mem.map((m) => JSON.stringify(m) + '\n').join('');
    const pad = 300; // MiB of blank lines, which readers skip
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(lines);
    const blank = Buffer.alloc(1024 * 1024, '\n');
    for (let i = 0; i < pad; i++) hash.update(blank);
    const bytes = Buffer.byteLength(lines) + pad * blank.length;
    const file = join(dataDir, 'padded.zip');
    const manifest = {
      format: 'mnemo-backup',
      format_version: 1,
      created_at: '2026-11-02T08:00:00.000Z',
      created_by: 'x',
      project_id: 'rel',
      projects: ['rel'],
      counts: { memories: 1, audit_entries: 0, vectors: 0, by_status: {} },
      embedding: { model: null, dim: null },
      vectors: { included: false, encoding: 'float32le-base64' },
      files: {
        'memories.jsonl': { sha256: hash.digest('hex'), bytes },
        'audit.jsonl': { sha256: createHash('sha256').update('').digest('hex'), bytes: 0 },
      },
    };
    await writeAesZip(file, PASSWORD, [
      {
        name: 'memories.jsonl',
        data: () =>
          Readable.from(
            (function* () {
              yield Buffer.from(lines);
              for (let i = 0; i < pad; i++) yield blank;
            })(),
          ),
      },
      { name: 'audit.jsonl', data: '' },
      { name: 'manifest.json', data: JSON.stringify(manifest) },
    ]);
    const r = await mnemo(['import', file, '--project', 'rel']);
    t.diagnostic(`import of a backup inflating to ${pad} MB: peak RSS ${r.rssMb.toFixed(0)} MB`);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Imported 1 new/);
    assert.ok(r.rssMb < pad, `streamed: peak RSS ${r.rssMb.toFixed(0)} MB is below the ${pad} MB inflated`);
  },
);
