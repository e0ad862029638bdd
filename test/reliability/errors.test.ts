import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cleanupDataDir, tempDataDir } from '../support/sidecarSession';
import { cli, killChromaServers } from './support';

// Small-scale rerun of the audit's bad-input runs: one sentence on stderr, a usage exit code, no stack
// trace, no raw errno, no echoed escape bytes, nothing stored.
const dataDir = tempDataDir('mnemo-rel-errors-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

function oneSentence(stderr: string): void {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${stderr}`);
  assert.match(lines[0]!, /^mnemo: [^\n]+[.?]$/);
  assert.doesNotMatch(stderr, /\n\s+at |E[A-Z]{3,}:|\x1b/);
}

test('bad input: one sentence each, and the store is untouched', { timeout: 5 * 60_000 }, async () => {
  const latin1 = join(dataDir, 'latin1.json');
  writeFileSync(latin1, Buffer.from('[{"role":"user","content":"caf\xe9 timeout 1500 ms"}]', 'latin1'));
  const cases: Array<[string[], RegExp]> = [
    [['list', '--limit', 'abc'], /--limit must be a positive whole number\./],
    [['\x1b[31mboom\x07'], /Unknown command "\\x1b\[31mboom\\x07"/],
    [['ingest', '--project', 'global', latin1], /only by promotion/],
    [['ingest', '--project', 'rel', latin1], /not valid UTF-8/],
    [['ingest', '--project', 'rel', '/dev/zero'], /larger than 64 MB/],
    [['ingest', '--project', 'rel', join(dataDir, 'missing.json')], /no such file/],
    [['decay', '--as-of', '2100-01-01', '--apply'], /in the future/],
    [['clean', '--threshold', 'x'], /--threshold must be a number from 0 to 1\./],
  ];
  for (const [args, expected] of cases) {
    const r = await cli(dataDir, args, { boundMs: 60_000 });
    assert.equal(r.hung, false);
    assert.notEqual(r.code, 0, args.join(' '));
    oneSentence(r.stderr);
    assert.match(r.stderr, expected);
  }
  const listed = await cli(dataDir, ['list', '--json']);
  assert.equal((JSON.parse(listed.stdout) as { total: number }).total, 0, 'nothing was stored by bad input');
});

test('a transcript with a UTF-8 BOM is accepted and learned', { timeout: 3 * 60_000 }, async () => {
  const bom = join(dataDir, 'bom.json');
  writeFileSync(
    bom,
    '\uFEFF' +
      JSON.stringify([
        { role: 'user', content: 'We decided to run the nightly billing backup at 02:00 UTC every day.' },
        { role: 'assistant', content: 'Noted: the nightly billing backup runs at 02:00 UTC.' },
      ]),
  );
  const r = await cli(dataDir, ['ingest', '--project', 'rel', bom]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /1 stored|2 stored/);
});

// Issue 39, item 14: `export --out /nonexistent/x.zip` made the missing folders. A typo in the path is said.
test(
  'a backup into a folder that does not exist is refused and makes no folders',
  { timeout: 3 * 60_000 },
  async () => {
    const missing = join(dataDir, 'no-such-folder', 'deeper');
    const r = await cli(dataDir, ['export', '--out', join(missing, 'x.zip'), '--password-stdin'], {
      input: 'correct-horse-battery\n',
    });
    assert.equal(r.hung, false);
    assert.notEqual(r.code, 0);
    oneSentence(r.stderr);
    assert.match(r.stderr, /no-such-folder.deeper does not exist; create it first/);
    assert.equal(existsSync(join(dataDir, 'no-such-folder')), false, 'no folder was created');
  },
);
