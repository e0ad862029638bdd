import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackupPreview, BackupTarget } from '../../sidecar/protocol';
import {
  backupFailureReason,
  confirmationsQuestion,
  isInside,
  overwriteDetail,
  previewDetail,
  restoreChoices,
} from '../../src/backupChoices';

function target(project_id: string, over: Partial<BackupTarget> = {}): BackupTarget {
  return {
    project_id,
    new: 2,
    conflicts: 0,
    differ: 0,
    overwrite: 0,
    episodes: 0,
    needs_consent: false,
    ...over,
  };
}

function preview(over: Partial<BackupPreview> = {}): BackupPreview {
  return {
    file: '/b/x.zip',
    format_version: 1,
    created_at: '2026-11-30T06:15:00.000Z',
    created_by: 'lin@laptop',
    project_id: null,
    projects: ['web-shop'],
    counts: {
      memories: 3,
      audit_entries: 0,
      vectors: 3,
      by_status: {} as BackupPreview['counts']['by_status'],
    },
    embedding: { model: 'm', dim: 384 },
    vectors_included: true,
    needs_reembed: false,
    conflicts: [],
    mode: 'skip',
    targets: [target('web-shop')],
    refused: [],
    ids_recomputed: 0,
    needs_consent: false,
    confirmations: { count: 0, by: [] },
    ...over,
  };
}

test('the restore modal offers what the preview allows', () => {
  assert.deepEqual(
    restoreChoices(preview()).map((c) => c.label),
    ['Restore', 'Import as a New Project…'],
  );
  const mixed = preview({
    targets: [target('global', { needs_consent: true }), target('web-shop', { conflicts: 1, differ: 1 })],
    conflicts: [{ id: 'mem_1', project_id: 'web-shop', text: 'old', differs: true, fields: ['status'] }],
    needs_consent: true,
  });
  const choices = restoreChoices(mixed);
  assert.deepEqual(
    choices.map((c) => [c.label, c.mode, c.consent, !!c.confirm]),
    [
      ['Restore', 'skip', false, false],
      ['Restore Including Other Projects', 'skip', true, false],
      ['Overwrite…', 'overwrite', true, true],
      ['Import as a New Project…', 'new-project', false, false],
    ],
  );
});

test('the first button (what Enter presses) never gives consent: nothing new here puts the new-project import first', () => {
  const onlyOthers = preview({
    targets: [target('global', { needs_consent: true }), target('web-shop', { new: 0, conflicts: 3 })],
    needs_consent: true,
  });
  const choices = restoreChoices(onlyOthers);
  assert.deepEqual(
    choices.map((c) => [c.label, c.consent]),
    [
      ['Import as a New Project…', false],
      ['Restore Including Other Projects', true],
    ],
  );
  assert.equal(restoreChoices(preview())[0]!.label, 'Restore');
});

test('the preview says when the backup was made to the minute, in UTC', () => {
  const text = previewDetail(preview(), (x) => x);
  assert.match(text, /made 2026-11-30 06:15 UTC by/);
  assert.doesNotMatch(text, /\d{2}:\d{2}:\d{2}\.\d{3}Z/);
});

test('the modal detail says where records go, what is refused, and what overwrite changes', () => {
  const p = preview({
    targets: [
      target('global', { new: 1, needs_consent: true }),
      target('web-shop', { conflicts: 2, differ: 1 }),
    ],
    refused: [{ reason: 'dated in the future', memories: 1, episodes: 0 }],
    ids_recomputed: 1,
  });
  const detail = previewDetail(p, (x) => x.toUpperCase());
  assert.match(detail, /→ GLOBAL: 1 new — needs your consent\./);
  assert.match(detail, /→ WEB-SHOP: 2 new, 2 already stored \(1 differ\)\./);
  assert.match(detail, /Not imported: 1 memory, dated in the future\./);
  assert.match(detail, /1 id did not match its text/);
  const ow = overwriteDetail(
    preview({
      targets: [target('web-shop', { overwrite: 2 })],
      conflicts: [
        {
          id: 'mem_1',
          project_id: 'web-shop',
          text: 'Port is 5432',
          differs: true,
          fields: ['text'],
          backup_text: 'Port is 6543',
        },
        { id: 'mem_2', project_id: 'web-shop', text: 'Use pnpm', differs: true, fields: ['status'] },
      ],
    }),
    (x) => x,
  );
  assert.match(ow, /^2 stored memories would be replaced/);
  // What the memory says now and what it becomes, by project: never a mem_ id a person cannot read.
  assert.match(ow, /• “Port is 5432” becomes “Port is 6543” \(web-shop\)/);
  assert.doesNotMatch(ow, /mem_1/);
  assert.match(ow, /Use pnpm \(web-shop\): status/);
});

test('a wrong password is recognised from the sidecar error data', () => {
  assert.equal(backupFailureReason({ message: 'x', data: { reason: 'wrong-password' } }), 'wrong-password');
  assert.equal(backupFailureReason(new Error('x')), undefined);
  assert.equal(backupFailureReason(undefined), undefined);
});

test('a backup that says memories were confirmed asks whether to keep its confirmations', () => {
  assert.equal(confirmationsQuestion(preview()), undefined);
  const q = confirmationsQuestion(preview({ confirmations: { count: 3, by: ['lin@laptop', 'ops@ci'] } }));
  assert.equal(q?.message, 'Keep the confirmations this backup says it has?');
  assert.match(q?.detail ?? '', /^The file says 3 memories were confirmed by lin@laptop, ops@ci\./);
  assert.deepEqual(q?.choices, ['Keep Them (I Made This Backup)', 'Review Them Again']);
});

test("a backup folder inside VS Code's profile is recognized, a sibling with the same prefix is not", () => {
  const profile = '/home/ana/.config/Code';
  assert.equal(isInside('/home/ana/.config/Code/User/globalStorage/mnemo.mnemo/backups', profile), true);
  assert.equal(isInside('/home/ana/.config/Code', profile), true);
  assert.equal(isInside('/home/ana/.config/Code - Insiders/backups', profile), false);
  assert.equal(isInside('/home/ana/Backups/mnemo', profile), false);
  assert.equal(isInside('/home/ana/.config/Code/../Backups', profile), false);
});
