import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Database } from 'node-sqlite3-wasm';
import {
  LexicalIndex,
  MAX_CACHED_TERMS,
  lexicalTerms,
  queryTerms,
} from '../../sidecar/store/lexical/lexical';

let dir: string;
let file: string;
let index: LexicalIndex;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mnemo-lexical-'));
  file = join(dir, 'index', 'lexical.sqlite');
  index = await LexicalIndex.open(file);
  await index.upsert([
    {
      id: 'e1',
      kind: 'episode',
      project: 'github.com/acme/plc',
      text: 'Li Lei: 我们把 PLC-3000 通讯超时阈值设为 1500ms',
    },
    {
      id: 'e2',
      kind: 'episode',
      project: 'github.com/acme/plc',
      text: 'Caroline: Roasted chicken is one of my favorites',
    },
    {
      id: 'm1',
      kind: 'memory',
      project: 'github.com/acme/plc',
      text: 'Deploys go through the staging cluster first',
    },
    {
      id: 'x1',
      kind: 'episode',
      project: 'github.com/acme/plc-x',
      text: 'Roasted chicken again, my favorite dinner',
    },
  ]);
});

after(() => {
  index.close();
  rmSync(dir, { recursive: true, force: true });
});

test('Chinese is segmented: a question about 超时 finds the turn that set the timeout', async () => {
  assert.ok(lexicalTerms('通讯超时阈值').includes('超时'));
  const hits = await index.search('PLC 超时设多少？', { projects: ['github.com/acme/plc'], limit: 5 });
  assert.equal(hits[0]?.id, 'e1');
});

test('English is stemmed: "favorite" finds "favorites"; question words are not terms', async () => {
  assert.deepEqual(queryTerms('What is her favorite food?'), ['favorite', 'food']);
  const hits = await index.search('What is her favorite food?', {
    projects: ['github.com/acme/plc'],
    limit: 5,
  });
  assert.deepEqual(
    hits.map((h) => h.id),
    ['e2'],
  );
});

test('a project never sees another project, even one whose id starts the same', async () => {
  const hits = await index.search('roasted chicken favorite', {
    projects: ['github.com/acme/plc-x'],
    limit: 5,
  });
  assert.deepEqual(
    hits.map((h) => h.id),
    ['x1'],
  );
  const none = await index.search('roasted chicken', { projects: ['github.com/other/repo'], limit: 5 });
  assert.deepEqual(none, []);
});

test('kinds filter: memories only', async () => {
  const hits = await index.search('staging deploys chicken', {
    projects: ['github.com/acme/plc'],
    kinds: ['memory'],
    limit: 5,
  });
  assert.deepEqual(
    hits.map((h) => h.id),
    ['m1'],
  );
});

test('upsert replaces a document by id and remove takes it out', async () => {
  await index.upsert([
    {
      id: 'm1',
      kind: 'memory',
      project: 'github.com/acme/plc',
      text: 'Deploys now go straight to production',
    },
  ]);
  assert.deepEqual(await index.search('staging', { projects: ['github.com/acme/plc'], limit: 5 }), []);
  assert.equal(
    (await index.search('production', { projects: ['github.com/acme/plc'], limit: 5 }))[0]?.id,
    'm1',
  );
  await index.remove(['m1']);
  assert.deepEqual(await index.search('production', { projects: ['github.com/acme/plc'], limit: 5 }), []);
  assert.ok(!(await index.ids('memory')).has('m1'));
});

test('a lock left by a killed process (dead pid, VFS lock dir) does not lock anyone out', async () => {
  writeFileSync(`${file}.mnemo-lock`, '999999999');
  mkdirSync(`${file}.lock`, { recursive: true });
  const hits = await index.search('超时', { projects: ['github.com/acme/plc'], limit: 5 });
  assert.equal(hits[0]?.id, 'e1');
});

test('an empty lock file (killed before it wrote its pid, or a full disk) is stale after the grace period', async () => {
  writeFileSync(`${file}.mnemo-lock`, '');
  const old = new Date(Date.now() - 60_000);
  utimesSync(`${file}.mnemo-lock`, old, old);
  const hits = await index.search('超时', { projects: ['github.com/acme/plc'], limit: 5 });
  assert.equal(hits[0]?.id, 'e1');
});

test('a second process-like handle on the same file sees the first one’s writes', async () => {
  const other = await LexicalIndex.open(file);
  try {
    await index.upsert([
      {
        id: 'e9',
        kind: 'episode',
        project: 'github.com/acme/plc',
        text: 'Melanie: I painted a sunrise last week',
      },
    ]);
    assert.equal(
      (await other.search('sunrise painting', { projects: ['github.com/acme/plc'], limit: 3 }))[0]?.id,
      'e9',
    );
  } finally {
    other.close();
  }
});

test('the project of each id is read back, and a memory moved to global is found there and no longer in its old project', async () => {
  await index.upsert([
    {
      id: 'p1',
      kind: 'memory',
      project: 'github.com/acme/plc',
      text: 'The flux capacitor needs 1.21 gigawatts',
    },
  ]);
  assert.deepEqual([...(await index.indexed(['p1', 'e2', 'nowhere']))].sort(), [
    ['e2', { project: 'github.com/acme/plc' }],
    ['p1', { project: 'github.com/acme/plc' }],
  ]);
  assert.equal(await index.setProjects([{ id: 'p1', project: 'global' }]), 1);
  assert.equal(await index.setProjects([{ id: 'p1', project: 'global' }]), 0, 'already there: not moved');
  assert.equal((await index.indexed(['p1'])).get('p1')?.project, 'global');
  assert.equal((await index.search('flux capacitor', { projects: ['global'], limit: 3 }))[0]?.id, 'p1');
  assert.deepEqual(await index.search('flux capacitor', { projects: ['github.com/acme/plc'], limit: 3 }), []);
});

test("a document's facts (what recall filters and ranks by) come back with its hits and by id, and follow a status change", async () => {
  const facts = (status: 'active' | 'wrong') => ({
    kind: 'memory' as const,
    status,
    confidence: 0.9,
    when: '2026-11-01T10:00:00.000Z',
    asks: false,
    timed: false,
    source_ref: ['msg:7'],
    tier: 'own-turn' as const,
  });
  await index.upsert([
    {
      id: 'f1',
      kind: 'memory',
      project: 'github.com/acme/facts',
      text: 'The turbo encabulator runs on 48 V',
      facts: facts('active'),
    },
  ]);
  const [hit] = await index.search('turbo encabulator', { projects: ['github.com/acme/facts'], limit: 3 });
  assert.deepEqual(hit?.facts, facts('active'));
  assert.equal(
    await index.setProjects([{ id: 'f1', project: 'github.com/acme/facts', facts: facts('wrong') }]),
    0,
  );
  assert.deepEqual((await index.indexed(['f1'])).get('f1'), {
    project: 'github.com/acme/facts',
    facts: facts('wrong'),
  });
  assert.equal((await index.indexed(['m1'])).get('m1')?.facts, undefined, 'indexed without facts: none');
  assert.deepEqual(
    (await index.indexed(['f1'], ['github.com/acme/other'])).get('f1'),
    { project: 'github.com/acme/facts' },
    'asked for other projects: its project, not its facts',
  );
});

test('a project that is most of the index and one that is a sliver both get their own best hits, in BM25 order, whichever way the query runs', async () => {
  const big = 'github.com/acme/big';
  const small = 'github.com/acme/small';
  const docs = [];
  // 60 turns of the big project share the words, 20 of them match better than anything of the small one
  // (which then falls back to the projects in the query); the small project has 4, two of them matches
  for (let i = 0; i < 60; i++)
    docs.push({
      id: `big${i}`,
      kind: 'episode' as const,
      project: big,
      text: i % 3 === 0 ? 'gateway port' : `gateway logs rotated on host ${i}`,
    });
  docs.push(
    { id: 's1', kind: 'episode' as const, project: small, text: 'gateway port 9443' },
    { id: 's2', kind: 'episode' as const, project: small, text: 'the gateway port is 9443 now' },
    { id: 's3', kind: 'episode' as const, project: small, text: 'lunch at noon' },
    { id: 's4', kind: 'episode' as const, project: small, text: 'the gateway is slow' },
  );
  await index.upsert(docs);
  for (let round = 0; round < 60; round++) {
    // past the re-probe interval of a scope that went to the scoped query
    const mine = await index.search('which gateway port?', { projects: [small], limit: 2 });
    assert.deepEqual(
      mine.map((h) => h.id),
      ['s1', 's2'],
      `round ${round}: the small project's two best, nothing of the big one`,
    );
    const theirs = await index.search('which gateway port?', { projects: [big], limit: 5 });
    assert.equal(theirs.length, 5);
    assert.ok(
      theirs.every((h) => h.project === big && Number(h.id.slice(3)) % 3 === 0),
      'the big project’s port turns',
    );
    assert.ok(
      theirs.every((h, i) => i === 0 || theirs[i - 1]!.score >= h.score),
      'best first',
    );
  }
  await index.remove(docs.map((d) => d.id));
});

test('ranking skips documents that cannot be among the best, yet returns exactly what scoring every match returns, through writes and deletes', async () => {
  // A vocabulary as conversations have it: a few words in most turns, some in a few, many in a handful.
  const own = mkdtempSync(join(tmpdir(), 'mnemo-lexical-exact-'));
  const ix = await LexicalIndex.open(join(own, 'lexical.sqlite'));
  const raw = new Database(join(own, 'lexical.sqlite'), { readOnly: true });
  try {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const common = ['deploy', 'staging', 'server', 'config', 'error', 'team'];
    const medium = Array.from({ length: 30 }, (_, i) => `module${String.fromCharCode(97 + (i % 26))}${i}`);
    const rare = Array.from({ length: 120 }, (_, i) => `ticket${i}x`);
    const text = () =>
      [
        ...common.filter(() => rnd() < 0.45),
        ...medium.filter(() => rnd() < 0.06),
        ...rare.filter(() => rnd() < 0.008),
        ...(rnd() < 0.3 ? ['deploy', 'deploy'] : []),
      ].join(' ') || 'hello';
    const projects = ['github.com/acme/a', 'github.com/acme/b', 'github.com/acme/c'];
    const doc = (i: number) => ({
      id: `d${i}`,
      kind: (i % 5 === 0 ? 'memory' : 'episode') as 'memory' | 'episode',
      project: projects[i % 10 === 0 ? 1 : i % 7 === 0 ? 2 : 0]!,
      text: text(),
    });
    const written = Array.from({ length: 3000 }, (_, i) => doc(i));
    await ix.upsert(written);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const questions = () =>
      Array.from({ length: 60 }, () =>
        [pick(common), pick(common), pick(medium), pick(rare), ...(rnd() < 0.5 ? [pick(medium)] : [])].join(
          ' ',
        ),
      );
    const expected = (q: string, project: string[], limit: number) => {
      const terms = queryTerms(q);
      const rows = raw.all(
        `SELECT i.id AS id, f.rank AS rank FROM (SELECT rowid, bm25(lex_fts, 1.0, 0.0) AS rank FROM lex_fts
            WHERE lex_fts MATCH ? ORDER BY rank, rowid) f JOIN lex_ids i ON i.rid = f.rowid ORDER BY f.rank, f.rowid`,
        [`body : (${terms.map((t) => `"${t}"`).join(' OR ')})`],
      ) as { id: string; rank: number }[];
      const inScope = new Set(
        (raw.all('SELECT id, project FROM lex_ids') as { id: string; project: string }[])
          .filter((r) => project.includes(r.project))
          .map((r) => r.id),
      );
      return rows.filter((r) => inScope.has(r.id)).slice(0, limit);
    };
    const check = async (round: string) => {
      for (const q of questions())
        for (const [scope, limit] of [
          [[projects[0]!], 40],
          [[projects[2]!], 5],
          [projects, 80],
        ] as const) {
          const got = await ix.search(q, { projects: [...scope], limit });
          const want = expected(q, [...scope], limit);
          assert.deepEqual(
            got.map((h) => h.id),
            want.map((r) => r.id),
            `${round}: "${q}" in ${scope.join(', ')}`,
          );
          got.forEach((h, i) =>
            assert.ok(Math.abs(h.score + want[i]!.rank) < 1e-9, `${round}: score of ${h.id}`),
          );
        }
    };
    await check('as written');
    // Writes change every term's weight: as many new documents without the common words (which makes
    // those words rarer, so they may weigh more than they did), some full of one rare term; some removed.
    await ix.upsert(
      Array.from({ length: 3000 }, (_, i) => ({
        ...doc(3000 + i),
        text: i < 200 ? `${rare[3]} ${rare[4]}` : `${pick(medium)} ${pick(rare)} hello`,
      })),
    );
    await ix.remove(Array.from({ length: 400 }, (_, i) => `d${i * 7}`));
    await check('after writes and deletes');
    // A common word made rare: it now weighs far more than when it was counted.
    const staging = written.filter((d) => / staging |^staging /.test(`${d.text} `)).map((d) => d.id);
    await ix.remove(staging.filter((_, i) => i % 20 !== 0));
    await check('after a common word became rare');
  } finally {
    raw.close();
    ix.close();
    rmSync(own, { recursive: true, force: true });
  }
});

test('a query that fills the cache of term counts still counts every one of its own terms', async () => {
  const own = mkdtempSync(join(tmpdir(), 'mnemo-lexical-cache-'));
  const ix = await LexicalIndex.open(join(own, 'lexical.sqlite'));
  try {
    const p = 'github.com/acme/a';
    await ix.upsert([
      { id: 'both', kind: 'episode', project: p, text: 'alpha bravo charlie' },
      { id: 'first', kind: 'episode', project: p, text: 'alpha alpha bravo' },
      { id: 'last', kind: 'episode', project: p, text: 'charlie delta' },
      ...Array.from({ length: 40 }, (_, i) => ({
        id: `n${i}`,
        kind: 'episode' as const,
        project: p,
        text: `filler ${i}`,
      })),
    ]);
    const ask = () => ix.search('alpha bravo charlie delta', { projects: [p], limit: 3 });
    const want = (await ask()).map((h) => h.id);
    assert.deepEqual(new Set(want), new Set(['both', 'first', 'last']));
    // A write (every count is stale), then questions of words no document has, until the cache is two
    // short of full: the question after them fills it up in the middle of its own terms.
    await ix.upsert([{ id: 'n99', kind: 'episode', project: p, text: 'filler 99' }]);
    let n = 0;
    const word = () => `zz${(n++).toString(36)}q`;
    while (n + 24 <= MAX_CACHED_TERMS - 2)
      await ix.search(Array.from({ length: 24 }, word).join(' '), { projects: [p], limit: 3 });
    await ix.search(Array.from({ length: MAX_CACHED_TERMS - 2 - n }, word).join(' '), {
      projects: [p],
      limit: 3,
    });
    assert.deepEqual(
      (await ask()).map((h) => h.id),
      want,
      'the same answer with a full cache',
    );
  } finally {
    ix.close();
    rmSync(own, { recursive: true, force: true });
  }
});
