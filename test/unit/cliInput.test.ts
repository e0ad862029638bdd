import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseTranscript, printable, readTextInput } from '../../sidecar/cli/shared';

const dir = mkdtempSync(join(tmpdir(), 'mnemo-cli-input-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a transcript saved with a UTF-8 byte-order mark is accepted', () => {
  const f = join(dir, 'bom.json');
  writeFileSync(
    f,
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[{"role":"user","content":"端口 5432"}]')]),
  );
  assert.deepEqual(parseTranscript(readTextInput(f), f), [{ role: 'user', content: '端口 5432' }]);
});

test('invalid UTF-8 is refused in one sentence, never stored as U+FFFD', () => {
  const f = join(dir, 'latin1.json');
  writeFileSync(f, Buffer.from('[{"role":"user","content":"caf\xe9"}]', 'latin1'));
  assert.throws(
    () => readTextInput(f),
    /^Error: .*latin1\.json is not valid UTF-8 text; save it as UTF-8 and try again\.$/,
  );
});

test('input larger than the limit is refused while reading: /dev/zero stops at the limit', () => {
  assert.throws(
    () => readTextInput('/dev/zero', 4 * 1024 * 1024),
    /\/dev\/zero is larger than 4 MB; split it into smaller transcripts\./,
  );
});

test('a missing file and a folder are named in words, not errno', () => {
  assert.throws(() => readTextInput(join(dir, 'nope.json')), /Cannot read .*nope\.json: no such file\./);
  assert.throws(() => readTextInput(dir), /Cannot read .*: it is a folder\./);
});

test('escape bytes in echoed input become visible, never terminal commands', () => {
  assert.equal(printable('Unknown command "\x1b[31mred\x07".'), 'Unknown command "\\x1b[31mred\\x07".');
  assert.equal(printable('line one\nline two\ttab'), 'line one\nline two\ttab');
  assert.equal(printable('C1 \u009b2J'), 'C1 \\x9b2J');
});
