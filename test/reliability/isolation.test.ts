import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

// Small-scale rerun of the audit's isolation run: a JSON-RPC filter is a value, never an operator, and one
// project's memories are never listed or recalled in another.
const dataDir = tempDataDir('mnemo-rel-iso-');
after(() => cleanupDataDir(dataDir));

test('operator filters are refused and projects stay apart', { timeout: 3 * 60_000 }, async () => {
  const s = await SidecarSession.start(testConfig(dataDir));
  try {
    await s.request(P.RememberRequest, {
      text: 'Project alpha deploys with Helm chart version 3.2 to the eu cluster.',
      project_id: 'alpha',
    });
    await s.request(P.RememberRequest, {
      text: 'Project beta keeps its secrets in the vault path kv/beta/app.',
      project_id: 'beta',
    });
    const hostile = [
      { project_id: { $ne: 'alpha' } },
      { project_id: { $in: ['alpha', 'beta'] } },
      { status: [{ $ne: 'wrong' }] },
      { category: { $exists: true } },
    ];
    for (const f of hostile) {
      await assert.rejects(
        s.request(P.ListRequest, f as unknown as P.ListParams),
        (e: { code?: number; message?: string }) =>
          e.code === P.ErrorCodes.InvalidInput && /^The filter's /.test(e.message ?? ''),
        JSON.stringify(f),
      );
    }
    const alpha = await s.request(P.ListRequest, { project_id: 'alpha', include_global: false, limit: 100 });
    assert.ok(alpha.items.length >= 1 && alpha.items.every((m) => m.project_id === 'alpha'));
    const recalled = await s.request(P.RecallRequest, {
      query: 'where does project beta keep its secrets vault path',
      project_ids: ['alpha'],
      top_k: 10,
      min_confidence: 0,
      min_similarity: 0,
    });
    assert.doesNotMatch(recalled.block, /kv\/beta/, 'beta is never recalled in alpha');
  } finally {
    await s.stop();
  }
});
