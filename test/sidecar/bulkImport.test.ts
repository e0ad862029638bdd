/** Bulk import over JSON-RPC: batches, dedup within the import and against the store, tombstones, redaction, bad input. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

describe('bulk import', () => {
  const dataDir = tempDataDir();
  let s: SidecarSession;
  before(async () => {
    s = await SidecarSession.start(testConfig(dataDir));
  });
  after(async () => {
    await s?.stop();
    cleanupDataDir(dataDir);
  });

  test('imports in batches, skips duplicates and tombstoned facts, redacts, reports progress', async () => {
    const wrong = await s.request(P.RememberRequest, {
      text: 'PLC-3000 must use the Windows Server 2012 driver',
      project_id: 'bulk',
    });
    await s.request(P.MarkWrongRequest, { id: wrong.id! });
    await s.request(P.RememberRequest, {
      text: 'Backups of the historian run nightly at 01:00 UTC',
      project_id: 'bulk',
    });
    const subjects = [
      'gateway',
      'historian',
      'firewall',
      'broker',
      'scanner',
      'printer',
      'router',
      'badge reader',
      'kiosk',
      'camera',
    ];
    const memories: P.BulkImportMemory[] = subjects.flatMap((subject, i) =>
      [
        'Rack A',
        'Hall B',
        'Site C',
        'Lab D',
        'Dock E',
        'Roof F',
        'Yard G',
        'Gate H',
        'Shop I',
        'Room J',
        'Wing K',
        'Line L',
        'Bay M',
        'Pier N',
        'Deck O',
      ].map((place, j) => ({
        text: `The ${subject} in ${place} was replaced by model X${i}${j}00 on day ${i * 15 + j + 1}`,
        project_id: 'bulk',
      })),
    );
    memories.push({ text: memories[0].text, project_id: 'bulk' }); // exact repeat inside the import
    memories.push({ text: 'Backups of the historian run nightly at 01:00 UTC.', project_id: 'bulk' }); // already stored
    memories.push({ text: 'PLC-3000 must use the Windows Server 2012 driver!', project_id: 'bulk' }); // marked wrong
    // Near a memory of another project only: imported (the nearest of any project is not a duplicate).
    await s.request(P.RememberRequest, {
      text: 'The badge printers in the lobby are reset every Friday at 18:00',
      project_id: 'bulk-elsewhere',
    });
    const nearElsewhere = 'The badge printers in the lobby are reset every Friday at 18:00.';
    memories.push({ text: nearElsewhere, project_id: 'bulk' });
    memories.push({
      text: 'The CI token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the build bot',
      project_id: 'bulk',
    });
    const progress: P.ProgressParams[] = [];
    s.conn.onNotification(P.ProgressNotification, (p) => progress.push(p));
    const r = await s.request(P.BulkImportRequest, { memories, progress_token: 'bulk-1' });
    assert.ok(r.imported >= 100, JSON.stringify(r));
    assert.ok(r.duplicates >= 2, JSON.stringify(r));
    assert.equal(r.blocked, 1);
    assert.equal(r.redactions, 1);
    assert.equal(r.imported + r.duplicates + r.blocked, memories.length);
    await s.waitFor('progress notifications', () => progress.filter((p) => p.token === 'bulk-1').length >= 2);
    const list = await s.request(P.ListRequest, { project_id: 'bulk', limit: 10_000 });
    assert.equal(list.total, r.imported + 2);
    assert.ok(!list.items.some((m) => m.text.includes('ghp_abc')));
    assert.ok(
      list.items.some((m) => m.text === nearElsewhere),
      'a text near only another project is imported',
    );
    const audit = await s.request(P.AuditListRequest, { project_id: 'bulk', limit: 10_000 });
    assert.ok(
      audit.entries.filter((e) => e.action === 'import' || e.action === 'create').length >= r.imported,
    );
  });

  test('a recall asked during a bulk import is answered before the import ends; both succeed', async () => {
    await s.request(P.RememberRequest, {
      text: 'The north line PLC firmware is pinned to version 4.2',
      project_id: 'bulk3',
    });
    const hosts = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const memories: P.BulkImportMemory[] = Array.from({ length: 400 }, (_, i) => ({
      text: `Build agent ${hosts[i % hosts.length]}-${i} caches ${i % 3 ? 'npm' : 'pip'} packages in /srv/cache/${i * 7}`,
      project_id: 'bulk3',
    }));
    let imported = false;
    const importing = s.request(P.BulkImportRequest, { memories }).then((r) => {
      imported = true;
      return r;
    });
    const recall = await s.request(P.RecallRequest, {
      query: 'which firmware version is the north line PLC on?',
      project_ids: ['bulk3'],
    });
    assert.equal(imported, false, 'the recall waited for the whole import');
    assert.match(recall.items[0]?.memory.text ?? '', /firmware is pinned to version 4\.2/);
    const r = await importing;
    assert.equal(r.imported + r.duplicates, memories.length);
    const after = await s.request(P.RecallRequest, {
      query: 'where does build agent golf-6 cache packages?',
      project_ids: ['bulk3'],
    });
    assert.ok(
      after.items.some((m) => m.memory.text.includes('golf-')),
      'the imported memories are recalled',
    );
  });

  test('a malformed record is refused with one sentence and nothing is imported', async () => {
    const before = await s.request(P.ListRequest, { project_id: 'bulk2' });
    await assert.rejects(
      s.request(P.BulkImportRequest, {
        memories: [
          { text: 'fine', project_id: 'bulk2' },
          { text: '', project_id: 'bulk2' },
        ],
      }),
      (e: { code: number; message: string }) =>
        e.code === P.ErrorCodes.InvalidInput && /Memory 2 has no text/.test(e.message),
    );
    const after = await s.request(P.ListRequest, { project_id: 'bulk2' });
    assert.equal(after.total, before.total);
  });
});
