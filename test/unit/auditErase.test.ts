import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AuditLog } from '../../sidecar/lifecycle/audit';
import type { AuditEntry } from '../../sidecar/protocol';

const dir = mkdtempSync(join(tmpdir(), 'mnemo-audit-erase-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const at = '2026-12-01T08:00:00.000Z';
const secretText = 'The payroll export goes to the shared drive at \\\\fin-01\\payroll every Friday.';

test('deleting a memory erases its text from every audit entry; the events stay', () => {
  const file = join(dir, 'delete.jsonl');
  const log = new AuditLog(file);
  log.append([
    {
      at,
      action: 'create',
      memory_id: 'mem_a',
      project_id: 'p',
      by: 'u',
      changes: { text: [null, secretText], status: [null, 'active'] },
    },
  ]);
  log.append([
    {
      at,
      action: 'create',
      memory_id: 'mem_b',
      project_id: 'p',
      by: 'u',
      changes: { text: [null, 'Keep this one: port 5432.'] },
    },
  ]);
  log.append([
    {
      at,
      action: 'confirm',
      memory_id: 'mem_a',
      project_id: 'p',
      by: 'u',
      changes: { status: ['active', 'confirmed'], confidence_score: [0.8, 1] },
    },
  ]);
  const sizeBefore = statSync(file).size;
  log.append([
    {
      at,
      action: 'delete',
      memory_id: 'mem_a',
      project_id: 'p',
      by: 'u',
      changes: { text: [secretText, null], source_ref: [['msg:m1', 'file:/x'], null] },
    },
  ]);
  log.close();
  const raw = readFileSync(file, 'utf8');
  assert.ok(!raw.includes('payroll'), 'the deleted text is nowhere in the file');
  const entries = new AuditLog(file).readAll();
  assert.deepEqual(
    entries.map((e) => `${e.action} ${e.memory_id}`),
    ['create mem_a', 'create mem_b', 'confirm mem_a', 'delete mem_a'],
    'every event is kept, in order',
  );
  assert.deepEqual(entries[0]!.changes, { text: [null, '[erased]'], status: [null, 'active'] });
  assert.deepEqual(
    entries[2]!.changes,
    { status: ['active', 'confirmed'], confidence_score: [0.8, 1] },
    'what is not content stays readable',
  );
  assert.equal(entries[1]!.changes!.text![1], 'Keep this one: port 5432.', 'other memories are untouched');
  assert.ok(statSync(file).size > sizeBefore, 'erasure rewrote lines in place, it did not drop any');
});

test('editing a text erases the old text and keeps the new one', () => {
  const file = join(dir, 'edit.jsonl');
  const log = new AuditLog(file);
  const e: AuditEntry[] = [
    {
      at,
      action: 'create',
      memory_id: 'mem_c',
      project_id: 'p',
      by: 'u',
      changes: { text: [null, 'The staging password rotates on Monday.'] },
    },
  ];
  log.append(e);
  log.append([
    {
      at,
      action: 'update',
      memory_id: 'mem_c',
      project_id: 'p',
      by: 'u',
      changes: { text: ['The staging password rotates on Monday.', 'Staging credentials rotate monthly.'] },
    },
  ]);
  log.close();
  const raw = readFileSync(file, 'utf8');
  assert.ok(!raw.includes('rotates on Monday'));
  const entries = new AuditLog(file).readAll();
  assert.deepEqual(entries[1]!.changes!.text, ['[erased]', 'Staging credentials rotate monthly.']);
});

test('another process appending to the same log meanwhile loses nothing (erasure is in place)', () => {
  const file = join(dir, 'shared.jsonl');
  const a = new AuditLog(file);
  const b = new AuditLog(file);
  a.append([
    {
      at,
      action: 'create',
      memory_id: 'mem_d',
      project_id: 'p',
      by: 'a',
      changes: { text: [null, 'A fact to delete later on.'] },
    },
  ]);
  b.append([{ at, action: 'create', memory_id: 'mem_e', project_id: 'p', by: 'b' }]);
  a.append([{ at, action: 'delete', memory_id: 'mem_d', project_id: 'p', by: 'a' }]);
  b.append([{ at, action: 'confirm', memory_id: 'mem_e', project_id: 'p', by: 'b' }]);
  a.close();
  b.close();
  assert.deepEqual(
    new AuditLog(file).readAll().map((e) => `${e.action} ${e.memory_id}`),
    ['create mem_d', 'create mem_e', 'delete mem_d', 'confirm mem_e'],
  );
});

test('a batch with a delete and other events of the same memory (a backup import) keeps every event', () => {
  const file = join(dir, 'batch.jsonl');
  const log = new AuditLog(file);
  log.append([
    {
      at,
      action: 'create',
      memory_id: 'mem_f',
      project_id: 'p',
      by: 'u',
      changes: { text: [null, 'Imported text that was deleted later.'] },
    },
    {
      at,
      action: 'confirm',
      memory_id: 'mem_f',
      project_id: 'p',
      by: 'u',
      changes: { status: ['active', 'confirmed'] },
    },
    { at, action: 'delete', memory_id: 'mem_f', project_id: 'p', by: 'u' },
    {
      at,
      action: 'create',
      memory_id: 'mem_f',
      project_id: 'p',
      by: 'u',
      changes: { text: [null, 'Learned again afterwards.'] },
    },
  ]);
  log.close();
  const entries = new AuditLog(file).readAll();
  assert.deepEqual(
    entries.map((e) => e.action),
    ['create', 'confirm', 'delete', 'create'],
  );
  assert.deepEqual(entries[0]!.changes!.text, [null, '[erased]']);
  assert.deepEqual(
    entries[3]!.changes!.text,
    [null, 'Learned again afterwards.'],
    'what came after the delete stays',
  );
});

test('compact erases what an older version left in the log: deleted texts, and texts an edit replaced (issue 39)', () => {
  const file = join(dir, 'old-version.jsonl');
  // Written as a version without erasure did: plain lines, content kept after the delete and the edit.
  const lines: AuditEntry[] = [
    {
      at,
      action: 'create',
      memory_id: 'mem_gone',
      project_id: 'p',
      by: 'u',
      changes: { text: [null, secretText] },
    },
    {
      at,
      action: 'delete',
      memory_id: 'mem_gone',
      project_id: 'p',
      by: 'u',
      changes: { text: [secretText, null] },
    },
    {
      at,
      action: 'create',
      memory_id: 'mem_edit',
      project_id: 'p',
      by: 'u',
      changes: { text: [null, 'Old port 5432.'] },
    },
    {
      at,
      action: 'update',
      memory_id: 'mem_edit',
      project_id: 'p',
      by: 'u',
      changes: { text: ['Old port 5432.', 'New port 6432.'] },
    },
    {
      at,
      action: 'confirm',
      memory_id: 'mem_edit',
      project_id: 'p',
      by: 'u',
      changes: { status: ['active', 'confirmed'] },
    },
    {
      at,
      action: 'create',
      memory_id: 'mem_kept',
      project_id: 'p',
      by: 'u',
      changes: { text: [null, 'Keep: the VPN is vpn.example.'] },
    },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const size = statSync(file).size;
  const log = new AuditLog(file);
  assert.equal(log.eraseGone(), 4);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes('payroll'), 'the deleted text is gone');
  assert.ok(!text.includes('Old port 5432'), 'the replaced text is gone');
  assert.ok(text.includes('New port 6432'), 'the current text stays');
  assert.ok(text.includes('vpn.example'), 'a memory never deleted or edited keeps its history');
  assert.equal(statSync(file).size, size, 'rewritten in place');
  assert.deepEqual(
    log.readAll().map((e) => e.action),
    ['create', 'delete', 'create', 'update', 'confirm', 'create'],
    'every event stays',
  );
  assert.equal(log.eraseGone(), 0, 'nothing left to erase');
});
