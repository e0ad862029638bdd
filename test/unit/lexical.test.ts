import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LexicalIndex, lexicalTerms, queryTerms } from '../../sidecar/recall/lexical';

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
