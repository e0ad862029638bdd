import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NearestPlanner, readBackInScope } from '../../sidecar/store/nearest';

/** A store of scored items: distance to the query is `d`; smaller is nearer. */
interface Item {
  id: number;
  project: string;
  ok: boolean;
  d: number;
}

function store(n: number, share: number, okRate: number, seed: number): Item[] {
  let s = seed;
  const r = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, (_, id) => ({
    id,
    project: r() < share ? 'mine' : `other-${Math.floor(r() * 19)}`,
    ok: r() < okRate,
    d: r(),
  }));
}

/** The plan's parts every test shares: the scope 'mine', k = 20, and what is in scope and passes. */
const MINE = {
  scope: 'mine',
  k: 20,
  inScope: (x: Item) => x.project === 'mine',
  passes: (x: Item) => x.ok,
};

/** The next question: every distance moves (another query vector), so each answer is checked afresh. */
function nextQuestion(items: Item[]): void {
  for (const x of items) x.d = (x.d * 7.31 + 0.123) % 1;
}

/** The project's items that pass, nearest first: the answer every plan must give. */
function passingNearest(items: Item[]): Item[] {
  return items.filter((x) => x.project === 'mine' && x.ok).sort((a, b) => a.d - b.d);
}

/** What Chroma would answer (nearest first), and which kind of query was asked. */
function chroma(items: Item[], calls: string[]) {
  const sorted = [...items].sort((a, b) => a.d - b.d);
  return {
    // ids first, the project of each from the lexical index, the scope's read back (as the stores do)
    unfiltered: async (n: number) => {
      calls.push('unfiltered');
      const near = new Map(sorted.slice(0, n).map((x) => [String(x.id), x]));
      return readBackInScope(
        [...near.values()].map((x) => ({ id: String(x.id), distance: x.d })),
        ['mine'],
        async (ids) => new Map(ids.map((id) => [id, { project: near.get(id)!.project }])),
        async (ids) => ids.map((id) => ({ id })),
        (row) => near.get(row.id)!,
      );
    },
    unfilteredWhole: async (n: number) => (calls.push('unfiltered'), sorted.slice(0, n)),
    scoped: async (n: number) => (
      calls.push('scoped'),
      sorted.filter((x) => x.project === 'mine').slice(0, n)
    ),
    exact: async (k: number) => (
      calls.push('exact'),
      sorted.filter((x) => x.project === 'mine' && x.ok).slice(0, k)
    ),
  };
}

test('the planner returns exactly the k nearest that pass, whatever share of the store the project is', async () => {
  for (const share of [1, 0.3, 0.05, 0.002]) {
    const planner = new NearestPlanner();
    const items = store(5000, share, 0.7, Math.round(share * 1000) + 1);
    for (let q = 0; q < 60; q++) {
      nextQuestion(items);
      const calls: string[] = [];
      const c = chroma(items, calls);
      const got = await planner.nearest({
        ...MINE,
        ...c,
      });
      const want = passingNearest(items).slice(0, 20);
      assert.deepEqual(
        got.map((x) => x.id),
        want.map((x) => x.id),
        `share ${share}, question ${q}: ${calls.join(' → ')}`,
      );
      assert.ok(
        got.every((x) => x.project === 'mine' && x.ok),
        'nothing of another project or not recallable',
      );
    }
  }
});

test('a project that is a small share of the store is not over-fetched unfiltered again and again', async () => {
  const planner = new NearestPlanner();
  const items = store(5000, 0.01, 0.7, 7);
  const calls: string[] = [];
  const c = chroma(items, calls);
  const ask = () =>
    planner.nearest({
      ...MINE,
      ...c,
    });
  await ask(); // learns the share
  calls.length = 0;
  for (let i = 0; i < 10; i++) await ask();
  assert.equal(calls.filter((x) => x === 'unfiltered').length, 0, calls.join(' '));
  // ...and the fully filtered query (status and confidence in Chroma's where) is the last resort only.
  assert.ok(calls.filter((x) => x === 'exact').length <= 1, calls.join(' '));
});

test('a project that is the whole store is answered by one unfiltered query', async () => {
  const planner = new NearestPlanner();
  const items = store(5000, 1, 0.7, 9);
  const calls: string[] = [];
  const c = chroma(items, calls);
  for (let i = 0; i < 5; i++) {
    calls.length = 0;
    await planner.nearest({
      ...MINE,
      ...c,
    });
    assert.deepEqual(calls, ['unfiltered']);
  }
});

test('the unfiltered fetch reads back only the neighbours of the scope, and those the lexical index does not know', async () => {
  const hits = [
    { id: 'a', distance: 0.1 },
    { id: 'b', distance: 0.2 },
    { id: 'c', distance: 0.3 },
    { id: 'd', distance: 0.4 },
  ];
  const projectOf = new Map([
    ['a', 'mine'],
    ['b', 'other'],
    ['d', 'global'],
  ]); // c is not in the index
  const asked: string[][] = [];
  const got = await readBackInScope(
    hits,
    ['mine', 'global'],
    async (ids) =>
      new Map([...projectOf].filter(([id]) => ids.includes(id)).map(([id, project]) => [id, { project }])),
    async (ids) => (asked.push(ids), ids.filter((id) => id !== 'd').map((id) => ({ id }))), // d deleted meanwhile
    (row, distance) => ({ id: row.id, distance }),
  );
  assert.equal(got.fetched, 4);
  assert.equal(got.candidates, 3, 'b is of another project');
  assert.deepEqual(await got.read(0, 1), [{ id: 'a', distance: 0.1 }]);
  assert.deepEqual(await got.read(1, 3), [{ id: 'c', distance: 0.3 }]);
  assert.deepEqual(asked, [['a'], ['c', 'd']], 'only what was asked for is read, never b');
});

test('neighbours the lexical index has facts of are never read back; the others are', async () => {
  const hits = [
    { id: 'a', distance: 0.1 },
    { id: 'b', distance: 0.2 },
    { id: 'c', distance: 0.3 },
  ];
  const known = new Map([
    ['a', { project: 'mine', facts: { ok: true } }],
    ['b', { project: 'mine' }],
    ['c', { project: 'other', facts: { ok: true } }],
  ]);
  const asked: string[][] = [];
  const got = await readBackInScope(
    hits,
    ['mine'],
    async () => known,
    async (ids) => (asked.push(ids), ids.map((id) => ({ id }))),
    (row, distance) => ({ id: row.id, distance, from: 'chroma' }),
    (id, _project, _facts, distance) => ({ id, distance, from: 'index' }),
  );
  assert.equal(got.candidates, 2, 'c is of another project');
  assert.deepEqual(await got.read(0, 2), [
    { id: 'a', distance: 0.1, from: 'index' },
    { id: 'b', distance: 0.2, from: 'chroma' },
  ]);
  assert.deepEqual(asked, [['b']], 'only b, which the index has no facts of, is read');
});

test('a small project the index can list is ranked among its own ids: exact, without unfiltered neighbours', async () => {
  // 'late': the index is not known to be complete for the first questions (the store's count check has
  // not answered yet); that is no reason to stop listing it.
  for (const listable of [true, false, 'late'] as const) {
    let asked = 0;
    const planner = new NearestPlanner();
    const items = store(5000, 0.05, 0.7, 11);
    const counts = new Map<string, number>();
    for (let q = 0; q < 120; q++) {
      nextQuestion(items);
      const calls: string[] = [];
      const c = chroma(items, calls);
      const got = await planner.nearest({
        ...MINE,
        ...c,
        // the index lists the project's ids; Chroma ranks exactly those (here: those that pass, as sent)
        listed: async (n: number) => {
          calls.push('listed');
          if (!listable) return 'unlistable' as const; // too many ids
          if (listable === 'late' && ++asked <= 3) return undefined; // not now
          const own = passingNearest(items);
          return { items: own.slice(0, n), all: own.length <= n };
        },
      });
      const want = passingNearest(items).slice(0, 20);
      assert.deepEqual(
        got.map((x) => x.id),
        want.map((x) => x.id),
        `question ${q}: ${calls.join(' → ')}`,
      );
      for (const x of calls) counts.set(x, (counts.get(x) ?? 0) + 1);
    }
    if (listable) {
      // The first question learns the share (unfiltered); then one re-probe every 50 questions.
      assert.ok((counts.get('listed') ?? 0) >= 115, JSON.stringify([...counts]));
      assert.ok(
        (counts.get('unfiltered') ?? 0) <= (listable === 'late' ? 7 : 4),
        JSON.stringify([...counts]),
      );
    } else {
      // A scope it cannot list falls through to the other paths, still exact (checked above).
      assert.ok(
        (counts.get('unfiltered') ?? 0) + (counts.get('scoped') ?? 0) >= 120,
        JSON.stringify([...counts]),
      );
      // ...and is not asked again until the next probe (one refusal per 50 questions).
      assert.ok((counts.get('listed') ?? 0) <= 4, JSON.stringify([...counts]));
    }
  }
});
