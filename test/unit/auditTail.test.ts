import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecentlyAnnounced } from '../../sidecar/lifecycle/auditTail';

test("the tail's echo of this process's own change is not announced again; another's change is", () => {
  let now = 1_000;
  const r = new RecentlyAnnounced(10_000, () => now);
  r.note(['mem_a']);
  now += 300; // the tail reads the audit log a moment later
  assert.equal(r.unannounced(['p'], ['mem_a']), undefined, 'the echo of our own write');
  assert.deepEqual(r.unannounced(['p'], ['mem_a', 'mem_b']), { projectIds: ['p'], ids: ['mem_b'] });
  assert.deepEqual(r.unannounced(['p'], []), { projectIds: ['p'], ids: [] }, 'a whole project is announced');
  now += 10_001; // long after: another process changed it
  assert.deepEqual(r.unannounced(['p'], ['mem_a']), { projectIds: ['p'], ids: ['mem_a'] });
});
