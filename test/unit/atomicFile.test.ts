/**
 * Whole-file writes in the data folder when several processes write the same file at once: two agents
 * starting Mnemo on a fresh data folder both write `store.json` (issue: "two CLIs at once on a fresh
 * store" failed with ENOENT renaming `store.json.tmp`, because both used that one temporary name).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { createFileOnce, replaceFile } from '../../sidecar/shared/atomicFile';
import { StoreState } from '../../sidecar/store/storeState';

const work = mkdtempSync(join(tmpdir(), 'mnemo-atomic-'));
after(() => rmSync(work, { recursive: true, force: true }));

const ROOT = resolve(__dirname, '../..');

/**
 * Runs `script` (with `arg(i)` as its last argument) in `n` processes at once: each says it is ready, then
 * waits for the others, so that the scripts really overlap however slowly the processes start.
 */
async function race(n: number, script: string, arg: (i: number) => string): Promise<string[]> {
  const go = join(mkdtempSync(join(work, 'go-')), 'go');
  const wait = `process.stdout.write('ready\\n');
    while (!require('node:fs').existsSync(${JSON.stringify(go)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);`;
  let ready = 0;
  const runs = Array.from({ length: n }, (_, i) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `${wait}\n${script}`, '--', arg(i)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (d.toString().includes('ready') && ++ready === n) writeFileSync(go, '');
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise<string>((done, fail) =>
      child.on('exit', (code) =>
        code === 0 ? done(out.replace('ready\n', '').trim()) : fail(new Error(`process ${i}: ${err}`)),
      ),
    );
  });
  return Promise.all(runs);
}

void test('processes replacing one file at once all succeed, and every read sees a whole file', async () => {
  const file = join(work, 'shared.json');
  const script = `
    const { replaceFile } = require('./sidecar/shared/atomicFile');
    const { readFileSync } = require('node:fs');
    const me = process.argv.at(-1);
    let torn = 0;
    for (let k = 0; k < 150; k++) {
      replaceFile(${JSON.stringify(file)}, JSON.stringify({ me, k, pad: 'x'.repeat(20000) }));
      try { JSON.parse(readFileSync(${JSON.stringify(file)}, 'utf8')); } catch { torn++; }
    }
    console.log(torn);`;
  const torn = await race(4, script, (i) => `p${i}`);
  assert.deepEqual(torn, ['0', '0', '0', '0'], 'no process ever read half a file');
  const last = JSON.parse(readFileSync(file, 'utf8')) as { k: number };
  assert.equal(last.k, 149);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(
    readdirSync(work).filter((f) => f.startsWith('shared.json.')),
    [],
    'no temporary left',
  );
});

void test('two processes starting on a fresh data folder agree on the active collection', async () => {
  for (let round = 0; round < 5; round++) {
    const dir = mkdtempSync(join(work, 'data-'));
    const script = `
      const { StoreState } = require('./sidecar/store/storeState');
      const model = process.argv.at(-1);
      const active = new StoreState(${JSON.stringify(dir)}).claim({ name: 'mnemo_' + model + '_384', model, dim: 384 });
      console.log(active.model);`;
    const chosen = await race(4, script, (i) => `model${i}`);
    assert.equal(new Set(chosen).size, 1, `round ${round}: every process uses one collection (${chosen})`);
    assert.equal(new StoreState(dir).read()?.model, chosen[0], 'and it is the one on disk');
    assert.deepEqual(readdirSync(dir), ['store.json']);
  }
});

void test('createFileOnce creates once; a damaged store.json is replaced; a re-embed switches', () => {
  const file = join(work, 'once.txt');
  assert.equal(createFileOnce(file, 'first'), true);
  assert.equal(createFileOnce(file, 'second'), false);
  assert.equal(readFileSync(file, 'utf8'), 'first');

  const dir = mkdtempSync(join(work, 'damaged-'));
  writeFileSync(join(dir, 'store.json'), '{"active": {"na');
  const state = new StoreState(dir);
  assert.equal(state.read(), undefined);
  const info = { name: 'mnemo_a_384', model: 'a', dim: 384 };
  assert.deepEqual(state.claim(info), info);
  assert.deepEqual(state.claim({ name: 'mnemo_b_8', model: 'b', dim: 8 }), info, 'the first claim stays');
  state.switchTo({ name: 'mnemo_b_8', model: 'b', dim: 8 });
  assert.equal(state.read()?.model, 'b');
});

void test('a symlinked file is written through, not replaced by a plain file', () => {
  const target = join(work, 'real-config.json');
  const link = join(work, 'link-config.json');
  writeFileSync(target, '{}');
  symlinkSync(target, link);
  replaceFile(link, '{"a":1}', 0o644);
  assert.ok(statSync(link).isFile());
  assert.equal(readFileSync(target, 'utf8'), '{"a":1}');
});
