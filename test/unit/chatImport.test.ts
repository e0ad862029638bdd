import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatExport } from '../../bench/lib/generate';
import { parseChatJson, type ParsedSession } from '../../src/capture/chatExport';
import { parseChatFile } from '../../src/capture/chatImport';

const utf8 = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));

async function all(bytes: Uint8Array): Promise<ParsedSession[]> {
  const file = await parseChatFile(bytes);
  assert.ok(file.ok, 'the file parses');
  const out: ParsedSession[] = [];
  for await (const s of file.read()) out.push(s);
  return out;
}

test('a 10k-message export read off the main thread gives every session, in order, exactly as parsed in place', async () => {
  const doc = chatExport(4242, 200, 50);
  const file = await parseChatFile(utf8(doc));
  assert.ok(file.ok);
  const expected = parseChatJson(doc);
  assert.equal(file.sessions, 200);
  assert.equal(
    file.messages,
    expected.reduce((n, s) => n + s.messages.length, 0),
  );
  const got: ParsedSession[] = [];
  for await (const s of file.read()) got.push(s);
  assert.deepEqual(got, expected);
});

test('non-ASCII text and a byte-order mark survive the worker', async () => {
  const doc = [{ role: 'user', content: '老王 says: use `pnpm` — not npm 🙂' }];
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(doc)]);
  const [s] = await all(bom);
  assert.equal(s.messages[0].content, '老王 says: use `pnpm` — not npm 🙂');
});

test('a file that is not JSON, or JSON of another shape, is refused with one sentence', async () => {
  const notJson = await parseChatFile(utf8('{"requests": [ oops'));
  assert.equal(notJson.ok, false);
  assert.equal(!notJson.ok && notJson.kind, 'json');
  const shape = await parseChatFile(utf8({ hello: 'world' }));
  assert.equal(shape.ok, false);
  assert.ok(!shape.ok && shape.kind === 'shape');
  assert.match(!shape.ok ? shape.message : '', /^This is not a VS Code chat export .*\.$/);
});

test('stopping early (a cancelled import) ends the read without waiting for the rest', async () => {
  const file = await parseChatFile(utf8(chatExport(7, 50, 10)));
  assert.ok(file.ok);
  let n = 0;
  for await (const _s of file.read()) if (++n === 3) break;
  assert.equal(n, 3);
});

test('bytes that are a view into a larger buffer are read as the view, not the whole buffer', async () => {
  const inner = utf8([{ role: 'user', content: 'only this' }]);
  const big = new Uint8Array(inner.length + 20).fill(0x20);
  big.set(inner, 10);
  const [s] = await all(big.subarray(10, 10 + inner.length));
  assert.equal(s.messages[0].content, 'only this');
});
