/**
 * The shape of the sidecar: the contract is a leaf, every request has its handler, the code shared by
 * both processes imports nothing from either side, there are no import circles, and no file imports a
 * floor above its own (in the sidecar and in the extension).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
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

/** A path under `dir` of the repository, with `/` between folders (how the tables below spell it). */
const under = (dir: string, file: string): string => relative(join(REPO, dir), file).split(sep).join('/');

/** The .ts file a relative specifier names (a folder: its index.ts), or the bare path if neither exists. */
function resolveTs(from: string, spec: string): string {
  const target = join(from, '..', spec);
  if (existsSync(`${target}.ts`)) return `${target}.ts`;
  if (existsSync(join(target, 'index.ts'))) return join(target, 'index.ts');
  return target;
}

/** Every relative import under `dir` that stays inside it: [importing file, specifier, imported file]. */
function edgesIn(dir: string): [from: string, spec: string, to: string][] {
  const edges: [string, string, string][] = [];
  for (const file of tsFiles(dir))
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolveTs(file, spec);
      if (target.startsWith(join(REPO, dir) + sep)) edges.push([under(dir, file), spec, under(dir, target)]);
    }
  return edges;
}

/**
 * The sidecar's floors, lowest first (issue 35): a file imports its own floor or a lower one, never a
 * higher one. A file is on the first floor whose pattern matches its path under sidecar/.
 */
const SIDECAR_FLOORS: [floor: string, holds: RegExp][] = [
  // leaves: the data model, the contract, code both processes share, small file/lock/number helpers
  ['leaves', /^(model\.ts|protocol\.ts|shared\/|util\/)/],
  // parts: storage, embedding, audit log / ledger / decay rules, LLM providers, pipeline stages, queue
  ['parts', /^(store|embed|lifecycle|llm|pipeline)\/|^queue\.ts$/],
  // core: the resolved config and the shared context (core.ts) every room is built on
  ['core', /^(config|core)\.ts$/],
  // rooms and what runs them: every other file (memories.ts, ingest/, recall/, agents/, service.ts…)
  ['rooms', /^/],
];

test('the sidecar is built in floors: no file imports a floor above its own', () => {
  const floorOf = (path: string): number => SIDECAR_FLOORS.findIndex(([, holds]) => holds.test(path));
  const files = tsFiles('sidecar').map((f) => under('sidecar', f));
  for (const [i, [floor]] of SIDECAR_FLOORS.entries())
    assert.ok(
      files.some((f) => floorOf(f) === i),
      `no file of sidecar/ is on the ${floor} floor; the table no longer matches the folders`,
    );
  const edges = edgesIn('sidecar');
  assert.ok(edges.length > 300, `read ${edges.length} imports in sidecar/; expected the whole graph`);
  const up = edges
    .filter(([from, , to]) => floorOf(to) > floorOf(from))
    .map(
      ([from, spec, to]) =>
        `sidecar/${from} (${SIDECAR_FLOORS[floorOf(from)]![0]}) -> ${spec} (${SIDECAR_FLOORS[floorOf(to)]![0]})`,
    );
  assert.deepEqual(
    up,
    [],
    'a file imports its floor and those below: a room goes at the top (sidecar/<room>.ts), not beside what it uses',
  );
});

/** The extension's folders and what each may not import (issue 35): imports run down to shared/. */
const SRC_FLOORS: [folder: string, mayNotImport: string[]][] = [
  // shared/: helpers every folder uses (context keys, the capture pause, source references, agent consent,
  // the words for a memory and for the pipeline's reasons)
  ['shared', ['views', 'commands', 'capture']],
  // views/: trees, pages, the edit form and their text; commands use them, never the other way round
  ['views', ['commands', 'capture']],
  // capture/: terminal, chat, LM tools and agents' sessions; they run no command and build no view
  ['capture', ['views', 'commands']],
];

test('src/ imports downwards: shared/ no folder; views/ and capture/ not each other, nor commands/', () => {
  assert.ok(tsFiles('src/shared').length >= 5, 'expected the shared helpers in src/shared/');
  const edges = edgesIn('src');
  assert.ok(edges.length > 150, `read ${edges.length} imports in src/; expected the whole graph`);
  const up = edges
    .filter(([from, , to]) =>
      SRC_FLOORS.some(
        ([folder, no]) => from.startsWith(`${folder}/`) && no.some((n) => to.startsWith(`${n}/`)),
      ),
    )
    .map(([from, spec]) => `${from} -> ${spec}`);
  assert.deepEqual(
    up,
    [],
    'move a helper two folders share to src/shared/, the view-only one to src/views/, or hand the view an interface',
  );
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
