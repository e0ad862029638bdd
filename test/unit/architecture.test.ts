/**
 * The shape of the sidecar: the contract is a leaf, every request has its handler, the code shared by
 * both processes imports nothing from either side, and there are no import circles.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import madge from 'madge';
import { RequestType, type Disposable } from 'vscode-jsonrpc';
import * as protocol from '../../sidecar/protocol';
import { registerHandlers, type RpcConnection } from '../../sidecar/server';
import type { MnemoService } from '../../sidecar/service';

const REPO = join(__dirname, '..', '..');

/** Every module specifier a TypeScript file imports or re-exports (static, type-only and `import('...')` types). */
function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const specs = [
    ...src.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g),
    ...src.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  const bare = [...src.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)];
  return [...specs, ...bare].map((m) => m[1]!);
}

test('protocol.ts imports only vscode-jsonrpc and the data model', () => {
  const imports = importsOf(join(REPO, 'sidecar', 'protocol.ts'));
  assert.ok(
    imports.includes('vscode-jsonrpc'),
    `expected protocol.ts to build its messages with vscode-jsonrpc, found ${imports.join(', ')}`,
  );
  const others = imports.filter((s) => s !== 'vscode-jsonrpc' && s !== './model');
  assert.deepEqual(others, [], `protocol.ts must be a leaf; it imports ${others.join(', ')}`);
});

test('the model imports only node built-ins, so the contract stays a leaf', () => {
  const bad = importsOf(join(REPO, 'sidecar', 'model.ts')).filter((s) => !s.startsWith('node:'));
  assert.deepEqual(bad, [], `model.ts imports ${bad.join(', ')}`);
});

test('sidecar/shared/ (code both processes run) imports only packages, the contract and each other', () => {
  const dir = join(REPO, 'sidecar', 'shared');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length >= 4, `expected the shared modules, found ${files.join(', ')}`);
  for (const f of files) {
    const bad = importsOf(join(dir, f)).filter(
      (s) =>
        s === 'vscode' ||
        (s.startsWith('.') && !/^\.\/\w+$/.test(s) && s !== '../protocol' && s !== '../model'),
    );
    assert.deepEqual(bad, [], `sidecar/shared/${f} imports ${bad.join(', ')}`);
  }
});

/** Every .ts file under a folder of the repository. */
function tsFiles(dir: string): string[] {
  return readdirSync(join(REPO, dir), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(REPO, dir, f));
}

test('the extension asks, the sidecar decides: src/ imports from sidecar/ only the contract and shared/', () => {
  const files = tsFiles('src');
  assert.ok(files.length > 40, `expected the extension's files, found ${files.length}`);
  const bad: string[] = [];
  for (const file of files)
    for (const spec of importsOf(file)) {
      const target = join(file, '..', spec);
      if (!spec.startsWith('.') || !target.startsWith(join(REPO, 'sidecar'))) continue;
      const inSidecar = target.slice(join(REPO, 'sidecar').length + 1);
      if (!/^(protocol|model|shared\/\w+)$/.test(inSidecar))
        bad.push(`${file.slice(REPO.length + 1)} -> ${spec}`);
    }
  assert.deepEqual(bad, [], "the sidecar's rooms run in the sidecar; the extension sends a request");
});

test('the sidecar never imports vscode', () => {
  const bad = tsFiles('sidecar').filter((f) => importsOf(f).includes('vscode'));
  assert.deepEqual(bad, []);
});

test('every request the extension or CLI sends has a handler bound in server.ts', () => {
  const bound: string[] = [];
  const conn: RpcConnection = {
    onRequest: (type) => {
      bound.push(type.method);
      return { dispose: () => undefined } as Disposable;
    },
    sendNotification: () => undefined,
  };
  registerHandlers(conn, {} as MnemoService, () => undefined);
  // The one request the sidecar sends: the extension answers it (src/ctx.ts).
  const toExtension = [protocol.LlmCompleteRequest.method];
  const requests = (Object.values(protocol) as unknown[])
    .filter((v): v is RequestType<unknown, unknown, void> => v instanceof RequestType)
    .map((r) => r.method);
  assert.ok(requests.length >= 25, `expected the protocol's requests, found ${requests.length}`);
  const unbound = requests.filter((m) => !toExtension.includes(m) && !bound.includes(m));
  assert.deepEqual(unbound, [], `requests without a handler in server.ts: ${unbound.join(', ')}`);
  assert.equal(new Set(bound).size, bound.length, 'a request is bound twice');
  assert.ok(
    readFileSync(join(REPO, 'src', 'ctx.ts'), 'utf8').includes('onRequest(client, LlmCompleteRequest'),
    'the extension answers mnemo/llm/complete',
  );
});

test('no import circles in sidecar/', async () => {
  const graph = await madge(join(REPO, 'sidecar'), {
    fileExtensions: ['ts'],
    tsConfig: join(REPO, 'tsconfig.json'),
  });
  const files = Object.keys(graph.obj());
  assert.ok(files.length > 40, `madge read ${files.length} files; expected the whole sidecar`);
  assert.ok(
    files.includes('service.ts') && files.includes('protocol.ts'),
    'madge should see service.ts and protocol.ts',
  );
  const circles = graph.circular();
  assert.deepEqual(
    circles.map((c) => c.join(' > ')),
    [],
    'import circles',
  );
});

test('service.ts is the composition root: small, one line per protocol method', () => {
  const lines = readFileSync(join(REPO, 'sidecar', 'service.ts'), 'utf8').split('\n').length;
  assert.ok(lines <= 350, `sidecar/service.ts has ${lines} lines; domain logic belongs in its room`);
});
