import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currentNeighbours } from '../../sidecar/ingest/neighbours';
import type { Memory } from '../../sidecar/model';
import { storedMemory } from '../support/memoryFixture';

const LIMIT = 0.15;

function memory(id: string, over: Partial<Memory> = {}): Memory {
  return storedMemory({ id, text: `The payment gateway timeout is ${id}`, ...over });
}

/** A store of these memories: `get` as the real one answers (missing ids left out), counting its calls. */
function storeOf(ms: Memory[]) {
  const byId = new Map(ms.map((m) => [m.id, m]));
  const calls: string[][] = [];
  return {
    calls,
    get: async (ids: string[]) => {
      calls.push(ids);
      return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
    },
  };
}

test('the closest memory still in use is chosen over a nearer older value; nothing more is read', async () => {
  const v1 = memory('1500', { status: 'superseded', superseded_by: '3000' });
  const v2 = memory('3000');
  const s = storeOf([v1, v2]);
  const [n] = await currentNeighbours(
    [
      [
        { memory: v1, distance: 0.02 },
        { memory: v2, distance: 0.05 },
      ],
    ],
    LIMIT,
    s.get,
  );
  assert.equal(n?.memory.id, '3000');
  assert.deepEqual(s.calls, []);
});

test('when only older values are near, the chain of newer values is followed to the one in use', async () => {
  const v1 = memory('1500', { status: 'superseded', superseded_by: '3000' });
  const v2 = memory('3000', { status: 'superseded', superseded_by: '4500' });
  const v3 = memory('4500');
  const s = storeOf([v1, v2, v3]);
  const [n] = await currentNeighbours([[{ memory: v1, distance: 0.04 }]], LIMIT, s.get);
  assert.equal(n?.memory.id, '4500');
  assert.equal(n?.distance, 0.04, "at the older value's distance");
  assert.equal(s.calls.length, 2, 'one read per hop');
});

test('a chain that leads nowhere (the newer value deleted) leaves the older value; far ones and a wrong one', async () => {
  const orphan = memory('1500', { status: 'superseded', superseded_by: 'gone' });
  const wrong = memory('2000', { status: 'wrong' });
  const s = storeOf([orphan, wrong]);
  const [a, b, c, d] = await currentNeighbours(
    [
      [{ memory: orphan, distance: 0.05 }],
      [
        { memory: wrong, distance: 0.05 },
        { memory: memory('2500'), distance: 0.06 },
      ],
      [{ memory: memory('far'), distance: 0.3 }],
      [],
    ],
    LIMIT,
    s.get,
  );
  assert.equal(a?.memory.id, '1500');
  assert.equal(b?.memory.id, '2000', 'a memory marked wrong is decided against (it blocks what it says)');
  assert.equal(c, undefined, 'nothing under the limit');
  assert.equal(d, undefined);
});
