import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as protocol from '../../sidecar/protocol';

const REPO = join(__dirname, '..', '..');

function protocolMethods(): string[] {
  return (Object.values(protocol) as unknown[])
    .map((v) => (typeof v === 'object' && v !== null ? (v as { method?: unknown }).method : undefined))
    .filter((m): m is string => typeof m === 'string');
}

test('every protocol message is documented in docs/protocol.md', () => {
  const doc = readFileSync(join(REPO, 'docs', 'protocol.md'), 'utf8');
  const methods = protocolMethods();
  assert.ok(methods.length >= 15, `expected the protocol to define its messages, found ${methods.length}`);
  const undocumented = methods.filter((m) => !doc.includes('`' + m + '`'));
  assert.deepEqual(undocumented, [], `undocumented protocol messages: ${undocumented.join(', ')}`);
});

test('every protocol message is namespaced mnemo/ and defined once', () => {
  const methods = protocolMethods();
  for (const m of methods) assert.match(m, /^mnemo\/[a-z]+(\/[a-zA-Z]+)?$/);
  assert.equal(new Set(methods).size, methods.length, 'a method name is used twice');
});

test('nothing under sidecar/ imports vscode', () => {
  const { execSync } = require('node:child_process') as typeof import('node:child_process');
  const hits = execSync(`grep -rlE "from 'vscode'|require\\('vscode'\\)" ${join(REPO, 'sidecar')} || true`)
    .toString()
    .trim();
  assert.equal(hits, '', `sidecar files import vscode: ${hits}`);
});
