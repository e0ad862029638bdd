/**
 * The shape of the extension (src/): one-way data flow (commands change memories through the sidecar;
 * views reload on the context's change event; the context holds no views) and no import circles.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const REPO = join(__dirname, '..', '..');
const SRC = join(REPO, 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

test('no command refreshes or patches a view by hand', () => {
  const offenders: string[] = [];
  for (const file of files(join(SRC, 'commands'))) {
    for (const m of code(file).matchAll(
      /\b(?:memories|review|dashboard|documents|statusBar)\.(refresh\w*|updateMemory)\(/g,
    )) {
      offenders.push(`${relative(REPO, file)}: ${m[0]}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test('the context holds no views (no service locator)', () => {
  const ctx = code(join(SRC, 'ctx.ts'));
  assert.doesNotMatch(ctx, /from '\.\/views(?:\/index)?'/, 'ctx.ts imports the views');
  assert.doesNotMatch(ctx, /\bviews\b\s*[!?]?:/, 'Ctx declares a views field');
});

/** Relative imports that exist at run time (`import type` and `export type` vanish when compiled). */
function runtimeImports(file: string): string[] {
  const out: string[] = [];
  for (const m of code(file).matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gms)) {
    const base = resolve(dirname(file), m[1]);
    const target = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (target?.startsWith(SRC)) out.push(target);
  }
  return out;
}

test('src/ has no import circles', () => {
  const graph = new Map(files(SRC).map((f) => [f, runtimeImports(f)]));
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, path: string[]): void => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(SRC, p)).join(' → '));
      return;
    }
    state.set(f, 'open');
    for (const g of graph.get(f) ?? []) visit(g, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of graph.keys()) visit(f, []);
  assert.deepEqual(cycles, []);
});
