/**
 * The review queue at scale (issue 32), through the real service and store: many pending memories
 * confirmed or rejected as one step and undone as one step; pending memories nobody reviewed archived
 * after `mnemo.review.archivePendingAfterDays` — kept, never recalled, still listed — and never before.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { cleanupDataDir, inProcessService, tempDataDir, waitFor } from '../support/sidecarSession';

const dataDir = tempDataDir();
after(() => cleanupDataDir(dataDir));
const T0 = new Date('2026-11-02T09:00:00.000Z');

const session = {
  project_id: 'review',
  source_type: 'chat' as const,
  session_id: 'r1',
  messages: [
    {
      id: 'r1',
      role: 'user',
      content: 'Remember this: the staging VPN profile is called team-blue.',
      timestamp: '2026-11-02T08:00:00Z',
    },
    {
      id: 'r2',
      role: 'user',
      content: '请记录：灰度发布先放 5% 流量，观察 30 分钟。',
      timestamp: '2026-11-02T08:01:00Z',
    },
    {
      id: 'r3',
      role: 'user',
      content: 'Remember that the nightly export runs at 02:30 UTC.',
      timestamp: '2026-11-02T08:02:00Z',
    },
  ],
};

test('bulk confirm and reject are one step each, undone as one step; unreviewed items age out to archived', async () => {
  const svc = inProcessService(dataDir, { review: { archivePendingAfterDays: 30 } }, { clock: () => T0 });
  await svc.start();
  let pendingIds: string[];
  try {
    await svc.ingest(session);
    const pending = (await svc.list({ project_id: 'review', status: ['pending'] })).items;
    assert.equal(pending.length, 3, pending.map((m) => m.text).join('\n'));
    pendingIds = pending.map((m) => m.id);
    const [a, b, c] = pendingIds as [string, string, string];
    const confirmed = await svc.reviewApply({ action: 'confirm', ids: [a, b], by: 'rev@ci' });
    assert.equal(confirmed.changed, 2);
    assert.deepEqual(
      (await svc.list({ project_id: 'review', status: ['confirmed'] })).items.map((m) => m.id).sort(),
      [a, b].sort(),
    );
    assert.equal((await svc.reviewUndo({ undo_token: confirmed.undo_token, by: 'rev@ci' })).restored, 2);
    assert.equal(
      (await svc.list({ project_id: 'review', status: ['pending'] })).total,
      3,
      'back in the queue',
    );
    const rejected = await svc.reviewApply({ action: 'reject', ids: [c] });
    assert.equal((await svc.get(c)).status, 'wrong');
    await svc.reviewUndo({ undo_token: rejected.undo_token });
    assert.equal((await svc.get(c)).status, 'pending');
    await assert.rejects(svc.reviewUndo({ undo_token: rejected.undo_token }), /can no longer be undone/);
  } finally {
    await svc.dispose();
  }
  // 29 days later nothing ages out; 31 days later every pending item is archived.
  for (const [days, expected] of [
    [29, 'pending'],
    [31, 'archived'],
  ] as const) {
    const later = inProcessService(
      dataDir,
      { review: { archivePendingAfterDays: 30 } },
      { clock: () => new Date(T0.getTime() + days * 86_400_000), background: true },
    );
    await later.start();
    try {
      if (expected === 'archived')
        await waitFor(
          'the unreviewed items archived',
          async () => (await later.list({ project_id: 'review', status: ['archived'] })).total === 3,
        );
      else await new Promise((r) => setImmediate(r));
      const statuses = await Promise.all(pendingIds!.map(async (id) => (await later.get(id)).status));
      if (expected === 'pending') assert.deepEqual(statuses, ['pending', 'pending', 'pending']);
      const recalled = await later.recall({ query: 'staging VPN profile', project_ids: ['review'] });
      if (expected === 'archived') {
        assert.ok(!recalled.items.some((i) => i.kind === 'memory'), 'archived memories are never recalled');
        assert.ok(
          later.auditList({ project_id: 'review' }).some((e) => e.note?.includes('archivePendingAfterDays')),
        );
      }
    } finally {
      await later.dispose();
    }
  }
});
