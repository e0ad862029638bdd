/**
 * package.json is the manifest of Mnemo's commands; src/commandIds.ts is the one place code spells them.
 * These tests keep the two in step and keep string literals of command ids out of the rest of src/.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Command, ViewId } from '../../src/commandIds';

const REPO = join(__dirname, '..', '..');

interface Manifest {
  contributes: {
    commands: { command: string }[];
    menus: Record<string, { command?: string; submenu?: string }[]>;
    submenus?: { id: string }[];
    views: Record<string, { id: string }[]>;
    viewsWelcome?: { view: string; contents: string }[];
  };
}

const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;
const contributed = manifest.contributes.commands.map((c) => c.command).sort();
const constants = Object.values(Command).sort();

function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(join(REPO, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => {
      const file = join(e.parentPath, e.name);
      return { file: file.slice(REPO.length + 1), text: readFileSync(file, 'utf8') };
    });
}

/** Command ids passed to `ctx.registerCommand(Command.x, …)` anywhere in src/. */
function registered(): string[] {
  const ids: string[] = [];
  for (const { text } of sources('src')) {
    for (const m of text.matchAll(/registerCommand\(\s*Command\.(\w+)/g)) {
      const id = (Command as Record<string, string>)[m[1]];
      assert.ok(id, `registerCommand(Command.${m[1]}) names no constant`);
      ids.push(id);
    }
  }
  return ids.sort();
}

test('every contributed command has a constant, and every constant is contributed', () => {
  assert.deepEqual(constants, contributed);
  assert.equal(new Set(constants).size, constants.length, 'two constants share an id');
});

test('every contributed command is registered exactly once, and nothing else is', () => {
  const ids = registered();
  assert.deepEqual(ids, contributed);
});

test('menus and welcome views name only contributed commands', () => {
  const known = new Set(contributed);
  const submenus = new Set((manifest.contributes.submenus ?? []).map((s) => s.id));
  for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
    for (const e of entries) {
      if (e.submenu !== undefined) assert.ok(submenus.has(e.submenu), `${menu} names submenu ${e.submenu}`);
      else assert.ok(known.has(e.command ?? ''), `${menu} names ${e.command}, which is not contributed`);
    }
  }
  for (const id of submenus) assert.ok(manifest.contributes.menus[id]?.length, `submenu ${id} is empty`);
  for (const w of manifest.contributes.viewsWelcome ?? []) {
    for (const m of w.contents.matchAll(/\(command:(mnemo\.[\w.]+)/g))
      assert.ok(known.has(m[1]), `a welcome view links ${m[1]}`);
  }
});

test('view ids match the contributed views', () => {
  const views = Object.values(manifest.contributes.views)
    .flat()
    .map((v) => v.id)
    .sort();
  assert.deepEqual(Object.values(ViewId).sort(), views);
});

test('no file of src/ spells a command id as a string literal outside src/commandIds.ts', () => {
  const ids = new Set(contributed);
  const offenders: string[] = [];
  for (const { file, text } of sources('src')) {
    if (file === join('src', 'commandIds.ts')) continue;
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const m of code.matchAll(/['"`](mnemo\.[\w.]+)['"`]/g))
      if (ids.has(m[1])) offenders.push(`${file}: ${m[1]}`);
  }
  assert.deepEqual(offenders, []);
});
