/**
 * `mnemo/memory/counts` against the real service, store and model: the groups agree with what
 * `mnemo/memory/list` returns for the same filter, after feedback moves memories between statuses.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { countMemories } from '../../sidecar/counts';
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';

describe('counts', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanupDataDir));

  test('counts per project, status, category and source match the lists, filters included', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const svc = inProcessService(dataDir);
    await svc.start();
    try {
      const a = await svc.remember({
        text: 'Deploy the billing service with make release only',
        project_id: 'acme',
        category: 'instruction',
      });
      const b = await svc.remember({
        text: 'The staging database listens on port 6543',
        project_id: 'acme',
        category: 'episodic',
        pending: true,
      });
      const c = await svc.remember({
        text: 'Ed prefers tabs over spaces in Go files',
        project_id: 'acme',
        category: 'persona',
        source_type: 'chat',
      });
      await svc.remember({
        text: 'Use pnpm for every JavaScript repository',
        project_id: 'global',
        category: 'instruction',
      });
      await svc.remember({
        text: 'The legacy cron job runs at midnight UTC',
        project_id: 'old-repo',
        category: 'episodic',
        pending: true,
      });
      await svc.markWrong({ id: c.id!, by: 'tester@ci' });

      const acme = await countMemories(svc.store, { project_id: 'acme', include_global: false });
      assert.equal(acme.total, 3);
      assert.equal(acme.total, (await svc.list({ project_id: 'acme', include_global: false })).total);
      const group = (status: string) =>
        acme.groups.filter((g) => g.status === status).map((g) => [g.category, g.source_type, g.count]);
      assert.deepEqual(
        group('confirmed'),
        [['instruction', 'manual', 1]],
        'remembered on request: confirmed',
      );
      assert.deepEqual(group('pending'), [['episodic', 'manual', 1]]);
      assert.deepEqual(group('wrong'), [['persona', 'chat', 1]], 'mark as wrong moved it');
      assert.ok(acme.groups.every((g) => g.project_id === 'acme'));

      const withGlobal = await countMemories(svc.store, { project_id: 'acme', include_global: true });
      assert.equal(withGlobal.total, 4);

      const shown = await countMemories(svc.store, { project_id: 'acme', status: ['confirmed', 'pending'] });
      assert.equal(shown.total, 2);
      const pendingEverywhere = await countMemories(svc.store, { status: ['pending'] });
      assert.deepEqual(pendingEverywhere.groups.map((g) => g.project_id).sort(), ['acme', 'old-repo']);

      const all = await countMemories(svc.store, {});
      assert.equal(all.total, 5);
      assert.equal(all.total, (await svc.list({})).total);
      assert.ok([a.id, b.id].every(Boolean));
    } finally {
      await svc.dispose();
    }
  });
});
