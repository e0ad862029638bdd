import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { memoryId, normalizeText } from '../../sidecar/model';
import { normalizeRemote, projectIdFor } from '../../sidecar/shared/project';

test('git remotes normalize to one project id whatever the URL form', () => {
  const expected = 'github.com/acme/plc-gateway';
  for (const url of [
    'git@github.com:Acme/plc-gateway.git',
    'https://github.com/acme/plc-gateway.git',
    'https://user:secret@github.com/acme/plc-gateway',
    'ssh://git@github.com:22/acme/plc-gateway.git',
  ]) {
    assert.equal(normalizeRemote(url), expected, url);
  }
});

test('a folder with a git remote maps to the remote; one without maps to name + path hash', () => {
  const root = mkdtempSync(join(tmpdir(), 'mnemo-proj-'));
  const repo = join(root, 'gateway');
  mkdirSync(join(repo, '.git'), { recursive: true });
  writeFileSync(
    join(repo, '.git', 'config'),
    '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@gitlab.example.com:ops/gateway.git\n',
  );
  assert.equal(projectIdFor(repo), 'gitlab.example.com/ops/gateway');
  mkdirSync(join(repo, 'sub'));
  assert.equal(
    projectIdFor(join(repo, 'sub')),
    'gitlab.example.com/ops/gateway',
    'subfolders belong to the same project',
  );
  const plain = join(root, 'Notes Folder');
  mkdirSync(plain);
  const id = projectIdFor(plain);
  assert.match(id, /^notes-folder-[0-9a-f]{6}$/);
  assert.equal(projectIdFor(plain), id, 'stable across calls');
  const other = join(root, 'x', 'Notes Folder');
  mkdirSync(other, { recursive: true });
  assert.notEqual(projectIdFor(other), id, 'same name elsewhere is another project');
});

test('memory ids are stable per project and normalized text', () => {
  assert.equal(memoryId('p', 'Use  Vim.'), memoryId('p', 'use vim'));
  assert.notEqual(memoryId('p', 'use vim'), memoryId('q', 'use vim'));
  assert.match(memoryId('p', 'x'), /^mem_[0-9a-f]{16}$/);
  assert.equal(normalizeText('  PLC-3000 超时 1500ms。 '), 'plc-3000 超时 1500ms');
});
