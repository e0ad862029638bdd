import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Database } from 'node-sqlite3-wasm';
import { LexicalIndex, queryTerms, type LexicalDoc } from '../../sidecar/store/lexical/lexical';
import { averagesOf } from '../../sidecar/store/lexical/postingsMirror';

// The search thread ranks from postings in memory (postingsMirror.ts). These tests hold them to what FTS5
// itself answers over the same file, row by row and score by score, while another connection writes.

let dir: string;
let file: string;
let writer: LexicalIndex;
let reader: LexicalIndex;
let raw: Database;
const lines: string[] = [];

let seed = 11;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
const common = ['deploy', 'deploying', 'staging', 'server', 'config', 'error', 'team', '超时', '部署'];
const medium = Array.from({ length: 30 }, (_, i) => `module${String.fromCharCode(97 + (i % 26))}${i}`);
const rare = Array.from({ length: 120 }, (_, i) => `ticket${i}x`);
const projects = ['github.com/acme/a', 'github.com/acme/b', 'github.com/acme/c'];
const text = () =>
  [
    ...common.filter(() => rnd() < 0.4),
    ...medium.filter(() => rnd() < 0.06),
    ...rare.filter(() => rnd() < 0.008),
    ...(rnd() < 0.3 ? ['deploys', 'deployed'] : []),
    ...(rnd() < 0.2 ? ['Café', 'naïve'] : []),
    // words in a handful of rows: their postings are read from the file, not kept
    ...(rnd() < 0.05 ? [`solo${Math.floor(rnd() * 200)}`, `solo${Math.floor(rnd() * 200)}`] : []),
  ].join(' ') || 'hello';
const doc = (i: number, t = text()): LexicalDoc => ({
  id: `d${i}`,
  kind: i % 5 === 0 ? 'memory' : 'episode',
  project: projects[i % 10 === 0 ? 1 : i % 7 === 0 ? 2 : 0]!,
  text: t,
});
const questions = (n: number) =>
  Array.from({ length: n }, () =>
    [
      pick(common),
      pick(common),
      pick(medium),
      pick(rare),
      `solo${Math.floor(rnd() * 200)}`,
      ...(rnd() < 0.5 ? ['deployed cafe'] : []),
    ].join(' '),
  );

/** FTS5's own answer: every match scored, filtered to the scope. */
function expected(q: string, scope: readonly string[], limit: number, kinds?: string[]) {
  const terms = queryTerms(q);
  const rows = raw.all(
    `SELECT i.id AS id, i.project AS project, i.kind AS kind, f.rank AS rank
       FROM (SELECT rowid, bm25(lex_fts, 1.0, 0.0) AS rank FROM lex_fts WHERE lex_fts MATCH ?) f
       JOIN lex_ids i ON i.rid = f.rowid ORDER BY f.rank, f.rowid`,
    [`body : (${terms.map((t) => `"${t}"`).join(' OR ')})`],
  ) as { id: string; project: string; kind: string; rank: number }[];
  return rows.filter((r) => scope.includes(r.project) && (!kinds || kinds.includes(r.kind))).slice(0, limit);
}

/** Every question in three scopes (one at a sliver, kinds too), answered by the reader as FTS5 answers. */
async function agrees(round: string, n = 40): Promise<void> {
  for (const q of questions(n))
    for (const [scope, limit, kinds] of [
      [[projects[0]!], 40, undefined],
      [[projects[2]!], 5, undefined],
      [projects, 80, undefined],
      [[projects[1]!, projects[0]!], 10, ['memory']],
    ] as const) {
      const got = await reader.search(q, {
        projects: [...scope],
        limit,
        ...(kinds ? { kinds: [...kinds] as ('memory' | 'episode')[] } : {}),
      });
      const want = expected(q, scope, limit, kinds ? [...kinds] : undefined);
      assert.deepEqual(
        got.map((h) => h.id),
        want.map((r) => r.id),
        `${round}: "${q}" in ${scope.join(', ')}`,
      );
      // and to the bit what the file path of the product (MaxScore, lexical.ts `ranked`) answers
      const fromFile = await writer.search(q, {
        projects: [...scope],
        limit,
        ...(kinds ? { kinds: [...kinds] as ('memory' | 'episode')[] } : {}),
      });
      assert.deepEqual(
        got.map((h) => [h.id, h.score]),
        fromFile.map((h) => [h.id, h.score]),
        `${round}: "${q}" (the file path)`,
      );
      got.forEach((h, i) => {
        assert.ok(
          Math.abs(h.score + want[i]!.rank) <= 1e-12 * Math.abs(h.score),
          `${round}: score of ${h.id}`,
        );
        assert.equal(h.project, want[i]!.project);
      });
    }
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mnemo-postings-'));
  file = join(dir, 'lexical.sqlite');
  writer = await LexicalIndex.open(file);
  await writer.upsert(Array.from({ length: 3000 }, (_, i) => doc(i)));
  reader = await LexicalIndex.open(file, { postings: true, log: (line) => lines.push(line) });
  raw = new Database(file, { readOnly: true });
});

after(() => {
  raw.close();
  reader.close();
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

test('once loaded, searches are ranked from memory with exactly the rows and scores FTS5 gives', async () => {
  await reader.postings!.settled();
  assert.equal(reader.postings!.ready, true);
  const before = reader.postings!.answered.memory;
  await agrees('loaded');
  assert.ok(reader.postings!.answered.memory > before, 'the searches were answered from memory');
});

test('a few writes from another connection are caught up on the question’s path, and answered from memory', async () => {
  await reader.postings!.settled();
  await writer.upsert([doc(5000, 'ticket7x ticket7x ticket7x deploy'), doc(17, 'staging 部署 replaced')]);
  await writer.remove(['d3', 'd21']);
  await writer.setProjects([{ id: 'd1', project: projects[2]! }]);
  const { memory, file: fromFile } = reader.postings!.answered;
  const hits = await reader.search('ticket7x', { projects: [projects[1]!], limit: 3 }); // d5000 is in b
  assert.equal(hits[0]?.id, 'd5000', 'a document written a moment ago is found, first');
  assert.ok(reader.postings!.answered.memory > memory, 'from memory');
  assert.equal(reader.postings!.answered.file, fromFile);
  const moved = await reader.search(expectedText('d1'), { projects: [projects[2]!], limit: 100 });
  assert.ok(
    moved.some((h) => h.id === 'd1'),
    'a moved document is found in its new project',
  );
  const old = await reader.search(expectedText('d1'), { projects: [projects[0]!], limit: 100 });
  assert.ok(!old.some((h) => h.id === 'd1'), 'and no longer in its old one');
  await agrees('after a few writes', 10);
});

function expectedText(id: string): string {
  const r = raw.get('SELECT f.body AS body FROM lex_ids l JOIN lex_fts f ON f.rowid = l.rid WHERE l.id = ?', [
    id,
  ]);
  return String(r?.body ?? '');
}

test('many writes are answered from the file until the copy has caught up behind the question, then from memory again', async () => {
  await reader.postings!.settled();
  await writer.upsert(
    Array.from({ length: 400 }, (_, i) =>
      doc(6000 + i, i < 100 ? `${rare[3]} ${rare[4]}` : `${pick(medium)} hello`),
    ),
  );
  await writer.remove(Array.from({ length: 100 }, (_, i) => `d${i * 7}`));
  const fromFile = reader.postings!.answered.file;
  await agrees('while catching up', 2);
  assert.ok(reader.postings!.answered.file > fromFile, 'the first answers came from the file');
  await reader.postings!.settled();
  assert.match(lines.at(-1) ?? '', /ranks from memory now: .* caught up with \d+ changes/);
  const memory = reader.postings!.answered.memory;
  await agrees('caught up');
  assert.ok(reader.postings!.answered.memory > memory, 'then from memory');
});

test('when more than a quarter of the rows changed, the copy is loaded anew rather than caught up', async () => {
  await reader.postings!.settled();
  await writer.upsert(Array.from({ length: 1500 }, (_, i) => doc(8000 + i)));
  await writer.removeProject(projects[2]!);
  await agrees('while loading', 2);
  await reader.postings!.settled();
  assert.match(lines.at(-1) ?? '', /ranks from memory now: .* loaded in/);
  const memory = reader.postings!.answered.memory;
  await agrees('loaded anew');
  assert.ok(reader.postings!.answered.memory > memory, 'then from memory');
  const averages = raw.get('SELECT block FROM lex_fts_data WHERE id = 1')!.block as Uint8Array;
  assert.equal(averagesOf(averages).rows, Number(raw.get('SELECT count(*) AS n FROM lex_ids')!.n));
});

test('an older Mnemo writing the file by hand (a move to another project, a text rewritten with as many words) is logged by the file itself and found at once, from memory', async () => {
  await reader.postings!.settled();
  const row = raw.get(
    'SELECT l.rid AS rid, f.body AS body FROM lex_ids l JOIN lex_fts f ON f.rowid = l.rid WHERE l.project = ? AND l.kind = ? LIMIT 1',
    [projects[0]!, 'memory'],
  )!;
  const words = String(row.body).split(' ');
  const body = ['zetaword', ...words.slice(1)].join(' '); // as many tokens: FTS5's counts do not change
  const newScope = raw.get(
    "SELECT f.scope AS scope FROM lex_ids l JOIN lex_fts f ON f.rowid = l.rid WHERE l.project = ? AND l.kind = 'memory'",
    [projects[1]!],
  )!.scope as string;
  const rw = new Database(file);
  try {
    rw.exec('BEGIN IMMEDIATE');
    rw.run('UPDATE lex_ids SET project = ? WHERE rid = ?', [projects[1]!, row.rid as number]);
    rw.run('UPDATE lex_fts SET scope = ?, body = ? WHERE rowid = ?', [newScope, body, row.rid as number]);
    rw.exec('COMMIT');
  } finally {
    rw.close();
  }
  const { memory, file: fromFile } = reader.postings!.answered;
  const there = await reader.search('zetaword', { projects: [projects[1]!], limit: 3 });
  assert.equal(there.length, 1, 'the rewritten text is found in its new project');
  const gone = await reader.search('zetaword', { projects: [projects[0]!], limit: 3 });
  assert.deepEqual(gone, [], 'and not in its old one');
  assert.ok(reader.postings!.answered.memory >= memory + 2, 'from memory');
  assert.equal(reader.postings!.answered.file, fromFile);
  await agrees('after a hand-written move', 10);
});

test('a change the log lost is caught by the counts check: answered from the file, then loaded anew', async () => {
  await reader.postings!.settled();
  const rw = new Database(file);
  try {
    const { lastInsertRowid } = rw.run(
      "INSERT INTO lex_ids (id, kind, project) VALUES ('old1', 'episode', ?)",
      [projects[0]!],
    );
    const scope = raw.get(
      "SELECT f.scope AS scope FROM lex_ids l JOIN lex_fts f ON f.rowid = l.rid WHERE l.kind = 'episode' AND l.project = ?",
      [projects[0]!],
    )!.scope as string;
    rw.run("INSERT INTO lex_fts (rowid, body, scope) VALUES (?, 'unloggedword', ?)", [
      lastInsertRowid,
      scope,
    ]);
    rw.run('DELETE FROM lex_log WHERE rid = ?', [lastInsertRowid]);
  } finally {
    rw.close();
  }
  const hits = await reader.search('unloggedword', { projects: [projects[0]!], limit: 3 });
  assert.deepEqual(
    hits.map((h) => h.id),
    ['old1'],
    'found all the same (from the file)',
  );
  await reader.postings!.settled();
  const memory = reader.postings!.answered.memory;
  const again = await reader.search('unloggedword', { projects: [projects[0]!], limit: 3 });
  assert.deepEqual(
    again.map((h) => h.id),
    ['old1'],
  );
  assert.ok(reader.postings!.answered.memory > memory, 'from memory, after loading anew');
  await agrees('after loading anew', 10);
});

test('a copy that starts on an empty index keeps the terms that become common, and a term 70,000 times in one row scores as FTS5 scores it', async () => {
  const own = mkdtempSync(join(tmpdir(), 'mnemo-postings-fresh-'));
  const f = join(own, 'lexical.sqlite');
  const w = await LexicalIndex.open(f);
  const r = await LexicalIndex.open(f, { postings: true });
  try {
    await r.postings!.settled();
    for (let b = 0; b < 20; b++) {
      await w.upsert(Array.from({ length: 20 }, (_, i) => doc(20_000 + b * 20 + i)));
      await r.search('deploy staging', { projects, limit: 5 });
    }
    await r.postings!.settled();
    assert.ok(r.postings!.keptTerms >= 2, `common words are kept (${r.postings!.keptTerms})`);
    await w.upsert([{ id: 'huge', kind: 'memory', project: projects[0]!, text: 'zeta '.repeat(70_000) }]);
    for (const q of ['zeta', 'zeta deploy']) {
      const mem = await r.search(q, { projects: [projects[0]!], limit: 3 });
      const fts = await w.search(q, { projects: [projects[0]!], limit: 3 });
      assert.deepEqual(
        mem.map((h) => [h.id, h.score]),
        fts.map((h) => [h.id, h.score]),
        q,
      );
    }
  } finally {
    r.close();
    w.close();
    rmSync(own, { recursive: true, force: true });
  }
});
