/**
 * The lexical channel of recall: BM25 over memories and episodes, in SQLite FTS5 (node-sqlite3-wasm: the
 * WebAssembly build, so one file runs in Node and in VS Code's Electron alike; docs/dependencies.md says
 * why it was chosen over MiniSearch, FlexSearch and better-sqlite3, with the numbers).
 *
 * The index is derived data: Chroma stays the source of truth, every entry can be rebuilt from it, and
 * a recall only ever returns ids that are then read back from Chroma. Text is segmented before it is
 * indexed (jieba for Chinese, which FTS5's tokenizers cannot split; FTS5's porter stemmer for English),
 * and the same segmentation turns a question into an OR of terms.
 *
 * On the search thread the same rankings come from postings kept in memory while they match the file
 * (postings.ts, postingsMirror.ts): FTS5's BM25 to the last rounding, without its ~2–3 µs a scored row.
 *
 * Isolation: each row carries its project as one opaque token (`p<sha1 prefix>`) in a `scope` column
 * that every query restricts, and the project read back from `lex_ids` is checked once more.
 *
 * Several processes share one data folder: every statement runs under a lock file with the owner's pid
 * (util/fileLock.ts), so a process killed mid-write never locks the others out (the WebAssembly VFS's own
 * lock is a directory that a killed process would leave behind; under our lock it is stale by
 * construction and removed).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Database } from 'node-sqlite3-wasm';
import { lock, unlock } from '../../util/fileLock';
import { jieba } from '../../util/jieba';
import { decodeFacts, encodeFacts, type RankFacts } from './facts';
import type { LexicalKind } from './postings';
import { averagesOf, FTS_TOKENIZER, PostingsMirror, readRecords, type Records } from './postingsMirror';

export type { LexicalKind };

export interface LexicalDoc {
  id: string;
  kind: LexicalKind;
  project: string;
  /** What is searched: for an episode "speaker: text", for a memory its text. */
  text: string;
  /** What recall ranks it by (facts.ts). */
  facts?: RankFacts;
}

/** What the index knows of an id: its project and, when written by this version, its facts. */
export interface Indexed {
  project: string;
  facts?: RankFacts;
}

export interface LexicalHit {
  id: string;
  kind: LexicalKind;
  project: string;
  /** BM25 (higher is better; FTS5's rank negated). */
  score: number;
  /** Its facts (facts.ts), when the index has them. */
  facts?: RankFacts;
}

export interface LexicalSearch {
  projects: string[];
  kinds?: LexicalKind[];
  limit: number;
}

/**
 * Words that carry no evidence of their own in a question: dropped from lexical queries (BM25 would
 * weigh them low anyway, but each OR term costs a posting-list scan).
 */
const QUERY_STOPWORDS: ReadonlySet<string> = new Set([
  // en: question words, auxiliaries, pronouns, articles, prepositions
  'a',
  'an',
  'the',
  'and',
  'or',
  'but',
  'of',
  'to',
  'in',
  'on',
  'at',
  'for',
  'with',
  'by',
  'from',
  'about',
  'as',
  'into',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'do',
  'does',
  'did',
  'done',
  'have',
  'has',
  'had',
  'will',
  'would',
  'should',
  'could',
  'can',
  'may',
  'might',
  'must',
  'shall',
  'what',
  'which',
  'who',
  'whom',
  'whose',
  'when',
  'where',
  'why',
  'how',
  'that',
  'this',
  'these',
  'those',
  'it',
  'its',
  'i',
  'me',
  'my',
  'we',
  'us',
  'our',
  'you',
  'your',
  'he',
  'him',
  'his',
  'she',
  'her',
  'they',
  'them',
  'their',
  'there',
  'any',
  'some',
  'so',
  'if',
  'then',
  'than',
  'not',
  'no',
  'yes',
  'ever',
  // zh: particles, pronouns, question words
  '的',
  '了',
  '吗',
  '呢',
  '吧',
  '啊',
  '是',
  '在',
  '有',
  '和',
  '与',
  '我',
  '你',
  '他',
  '她',
  '它',
  '我们',
  '你们',
  '他们',
  '什么',
  '怎么',
  '怎么样',
  '哪',
  '哪个',
  '哪些',
  '哪里',
  '谁',
  '多少',
  '几',
  '为什么',
  '这',
  '那',
  '这个',
  '那个',
  '一个',
  '也',
  '都',
  '就',
  '还',
  '要',
  '会',
  '能',
  '吗？',
  '过',
  '着',
]);

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
/** The longest question turned into terms; the rest adds little and costs scans. */
const MAX_QUERY_TERMS = 24;
const LOCK_WAIT_MS = 5_000;
/**
 * A search over projects that hold at least this share of what matches runs without the projects in its
 * MATCH (then filtered here): the scope's phrases are matched and scored on every row, which doubled the
 * cost of a search over 110k turns of one project (docs/benchmarks.md). A smaller share keeps them: they
 * cut the rows scored to the projects' own.
 */
const UNSCOPED_SHARE = 0.5;
/** A scope sent to the scoped MATCH is tried without it again every this many searches (its share changes). */
const SCOPE_REPROBE = 50;
const MAX_SCOPE_STATS = 256;

/** Index-time segmentation: Chinese runs through jieba (search mode), everything else as words. */
export function lexicalTerms(text: string): string[] {
  const lower = text.normalize('NFKC').toLowerCase();
  const words = CJK.test(lower) ? jieba().cutForSearch(lower, true) : lower.split(/[^\p{L}\p{N}]+/u);
  return words.map((w) => w.trim()).filter((w) => w && /[\p{L}\p{N}]/u.test(w));
}

/** Query-time terms: the same segmentation, stopwords and duplicates out. */
export function queryTerms(text: string): string[] {
  const seen = new Set<string>();
  for (const t of lexicalTerms(text)) {
    if (QUERY_STOPWORDS.has(t) || seen.has(t)) continue;
    seen.add(t);
    if (seen.size >= MAX_QUERY_TERMS) break;
  }
  return [...seen];
}

const projectToken = (project: string): string =>
  `p${createHash('sha1').update(project).digest('hex').slice(0, 20)}`;
const kindToken = (kind: LexicalKind): string => `k${kind}`;
/** An FTS5 string literal. */
const quote = (term: string): string => `"${term.replace(/"/g, '""')}"`;
/** Terms as an OR in the searched column. */
const bodyOf = (terms: readonly string[]): string => `body : (${terms.map(quote).join(' OR ')})`;

/** A full-text query: its terms (ORed, ranked by BM25) and what else a match must satisfy (scope, kind). */
export interface MatchQuery {
  terms: string[];
  /** An FTS5 expression ANDed with the terms; its phrases score nothing (the scope column weighs 0). */
  filter?: string;
  /** The same restriction as data, for the in-memory postings (postingsMirror.ts); set with every filter. */
  scope?: { projects: string[]; kinds?: LexicalKind[] };
}

/** FTS5's BM25 constants (fts5_aux.c). */
const BM25_K1 = 1.2;
/**
 * Above any share of a document's BM25 one term can give: FTS5's idf (never below 1e-6) times (k1 + 1),
 * the limit of its term-frequency factor.
 */
export function scoreBound(docs: number, df: number): number {
  return Math.max(Math.log((docs - df + 0.5) / (df + 0.5)), 1e-6) * (BM25_K1 + 1);
}
/** {@link LexicalIndex.ranked}'s first guess skips common terms whose bounds add up to this much of the learned floor. */
const THETA_GUESS_MARGIN = 0.8;
/** How many terms the document counts are kept for (then forgotten, before a query counts its own). */
export const MAX_CACHED_TERMS = 4096;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS lex_ids (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, project TEXT NOT NULL, facts TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS lex_fts USING fts5(body, scope, tokenize = '${FTS_TOKENIZER}');
CREATE TABLE IF NOT EXISTS lex_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, rid INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS lex_log_insert AFTER INSERT ON lex_ids BEGIN INSERT INTO lex_log (rid) VALUES (NEW.rid); END;
CREATE TRIGGER IF NOT EXISTS lex_log_delete AFTER DELETE ON lex_ids BEGIN INSERT INTO lex_log (rid) VALUES (OLD.rid); END;
CREATE TRIGGER IF NOT EXISTS lex_log_move AFTER UPDATE OF project, kind ON lex_ids BEGIN INSERT INTO lex_log (rid) VALUES (NEW.rid); END;
`;
/**
 * The change log (`lex_log`): the row ids every write touches, logged by SQLite itself (triggers on
 * `lex_ids`, which every writer of this file — of any version — changes with its text), so the search
 * thread's in-memory postings catch up with exactly those rows (postingsMirror.ts). The newest this many
 * entries are kept; a reader further behind loads the postings anew.
 */
const LOG_KEEP = 100_000;
/** Lists a scope's ids ({@link LexicalIndex.members}); built once on an older file, skipped if it cannot be. */
const SCOPE_INDEX = 'CREATE INDEX IF NOT EXISTS lex_ids_scope ON lex_ids(project, kind)';

export class LexicalIndex {
  private thread: SearchThread | undefined;
  /** The in-memory postings of the search thread's connection (postingsMirror.ts); none elsewhere. */
  private mirror: PostingsMirror | undefined;
  /** Per scope (its projects), the share of unscoped hits that were its own, and searches since it was measured. */
  private readonly scopeShare = new Map<string, { share: number; since: number }>();
  /** Per-term document counts while the full-text index is unchanged ({@link termStats}). */
  private stats: { averages: Buffer; structure: Buffer; docs: number; df: Map<string, number> } = {
    averages: Buffer.alloc(0),
    structure: Buffer.alloc(0),
    docs: 0,
    df: new Map(),
  };
  /** The last queries' `limit`-th score over the sum of their terms' bounds ({@link ranked}'s first guess). */
  private thetaShare = 0.5;

  private constructor(
    private readonly db: Database,
    private readonly file: string,
    private readonly lockFile: string,
    private readonly vfsLock: string,
  ) {}

  /**
   * Opens (creating if needed) the index file; the folder is created 0700. With `postings`, full-text
   * queries are ranked from postings kept in memory while they match the file (the search thread's
   * connection: postingsMirror.ts), loaded from now on.
   */
  static async open(
    file: string,
    o: { postings?: boolean; log?: (line: string, level: 'info' | 'warn') => void } = {},
  ): Promise<LexicalIndex> {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const lockFile = `${file}.mnemo-lock`;
    const vfsLock = `${file}.lock`;
    await lock(lockFile, LOCK_WAIT_MS);
    try {
      clearVfsLock(vfsLock);
      const db = new Database(file);
      db.exec(SCHEMA);
      try {
        db.exec(SCOPE_INDEX);
      } catch {
        // A full disk, say: listing a scope then scans the table, which is slower but the same.
      }
      // An index written before the facts (store/lexical/facts.ts) existed: its rows get them at the next check.
      if (!db.all('PRAGMA table_info(lex_ids)').some((c) => c.name === 'facts'))
        db.exec('ALTER TABLE lex_ids ADD COLUMN facts TEXT');
      // Erasure: a deleted document's words leave the file at once, not at the next compaction — its
      // pages are zeroed (secure_delete) and FTS5 removes its entries from the index instead of adding
      // delete markers ('secure-delete', SQLite 3.42+, persistent in the table's config).
      db.exec('PRAGMA secure_delete = ON');
      if (!db.get("SELECT 1 AS x FROM lex_fts_config WHERE k = 'secure-delete' AND v = 1"))
        db.exec("INSERT INTO lex_fts(lex_fts, rank) VALUES('secure-delete', 1)");
      const ix = new LexicalIndex(db, file, lockFile, vfsLock);
      if (o.postings) {
        ix.mirror = new PostingsMirror(db, (fn) => ix.locked(fn), o.log);
        ix.mirror.warm();
      }
      return ix;
    } finally {
      unlock(lockFile);
    }
  }

  /** Runs `fn` with the cross-process lock held (the VFS lock of a dead holder cleared first). */
  private async locked<T>(fn: () => T): Promise<T> {
    await lock(this.lockFile, LOCK_WAIT_MS);
    try {
      clearVfsLock(this.vfsLock);
      return fn();
    } finally {
      unlock(this.lockFile);
    }
  }

  /** Adds or replaces documents by id, in one transaction. */
  async upsert(docs: LexicalDoc[]): Promise<void> {
    if (!docs.length) return;
    await this.locked(() =>
      this.transaction(() => {
        for (const d of docs) {
          const old = this.db.get('SELECT rid FROM lex_ids WHERE id = ?', [d.id]);
          if (old) {
            this.db.run('DELETE FROM lex_fts WHERE rowid = ?', [old.rid as number]);
            this.db.run('DELETE FROM lex_ids WHERE rid = ?', [old.rid as number]);
          }
          const { lastInsertRowid } = this.db.run(
            'INSERT INTO lex_ids (id, kind, project, facts) VALUES (?, ?, ?, ?)',
            [d.id, d.kind, d.project, d.facts ? encodeFacts(d.facts) : null],
          );
          this.db.run('INSERT INTO lex_fts (rowid, body, scope) VALUES (?, ?, ?)', [
            lastInsertRowid,
            lexicalTerms(d.text).join(' '),
            `${projectToken(d.project)} ${kindToken(d.kind)}`,
          ]);
        }
      }),
    );
  }

  async remove(ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.locked(() =>
      this.transaction(() => {
        for (const id of ids) {
          const old = this.db.get('SELECT rid FROM lex_ids WHERE id = ?', [id]);
          if (!old) continue;
          this.db.run('DELETE FROM lex_fts WHERE rowid = ?', [old.rid as number]);
          this.db.run('DELETE FROM lex_ids WHERE rid = ?', [old.rid as number]);
        }
      }),
    );
  }

  /** Removes every document of a project (per-project wipe); returns how many. */
  async removeProject(project: string): Promise<number> {
    return this.locked(() =>
      this.transaction(() => {
        const rows = this.db.all('SELECT rid FROM lex_ids WHERE project = ?', [project]);
        for (const r of rows) {
          this.db.run('DELETE FROM lex_fts WHERE rowid = ?', [r.rid as number]);
          this.db.run('DELETE FROM lex_ids WHERE rid = ?', [r.rid as number]);
        }
        return rows.length;
      }),
    );
  }

  /**
   * Merges the full-text index's segments and rewrites the file (FTS5 `optimize`, then `VACUUM`), so
   * the words of deleted documents are gone from disk too, not only from the index.
   */
  async compact(): Promise<void> {
    await this.locked(() => {
      this.db.exec("INSERT INTO lex_fts(lex_fts) VALUES('optimize')");
      this.db.exec('VACUUM');
    });
  }

  /**
   * The project and facts of each of these ids that the index holds (a primary-key lookup per id): the
   * vector channels' unfiltered neighbours are filtered and ranked with them, so only the items recall
   * answers with are read from Chroma. With `projects`, the facts only of the ids of those projects (the
   * others are filtered out by their project alone). Runs on the search thread when one is attached.
   */
  async indexed(ids: string[], projects?: readonly string[]): Promise<Map<string, Indexed>> {
    if (!ids.length) return new Map();
    if (this.thread?.alive)
      return this.thread.indexed(ids, projects).catch((e: unknown) => {
        if (this.thread?.alive) throw e;
        return this.lookup(ids, projects);
      });
    return this.lookup(ids, projects);
  }

  /**
   * Every id of a kind in these projects with its project and facts, when there are at most `max` of them
   * (undefined when there are more): the vector channel then asks Chroma for the nearest among exactly
   * these ids (store/nearest.ts). Runs on the search thread when one is attached.
   */
  async members(
    kind: LexicalKind,
    projects: readonly string[],
    max: number,
  ): Promise<Map<string, Indexed> | undefined> {
    if (this.thread?.alive)
      return this.thread.members(kind, projects, max).catch((e: unknown) => {
        if (this.thread?.alive) throw e;
        return this.listMembers(kind, projects, max);
      });
    return this.listMembers(kind, projects, max);
  }

  /** How many documents of a kind the index holds (on the search thread when one is attached). */
  async count(kind: LexicalKind): Promise<number> {
    if (this.thread?.alive)
      return this.thread.count(kind).catch((e: unknown) => {
        if (this.thread?.alive) throw e;
        return this.countHere(kind);
      });
    return this.countHere(kind);
  }

  /** {@link count} on this connection. */
  async countHere(kind: LexicalKind): Promise<number> {
    return this.locked(() =>
      Number(this.db.get('SELECT count(*) AS n FROM lex_ids WHERE kind = ?', [kind])?.n ?? 0),
    );
  }

  /** {@link members} on this connection (the scope index `lex_ids_scope` finds them). */
  async listMembers(
    kind: LexicalKind,
    projects: readonly string[],
    max: number,
  ): Promise<Map<string, Indexed> | undefined> {
    const rows = await this.locked(() =>
      this.db.all(
        `SELECT id, project, facts FROM lex_ids
          WHERE project IN (SELECT value FROM json_each(?)) AND kind = ? LIMIT ?`,
        [JSON.stringify(projects), kind, max + 1],
      ),
    );
    if (rows.length > max) return undefined;
    const out = new Map<string, Indexed>();
    for (const r of rows) {
      const facts = decodeFacts(r.facts);
      out.set(r.id as string, { project: r.project as string, ...(facts ? { facts } : {}) });
    }
    return out;
  }

  /**
   * {@link indexed} on this connection, in one statement (each statement of the WebAssembly build costs a
   * lock of its file: 860 ids in two `IN` lists took twice as long as one `json_each`).
   */
  async lookup(ids: string[], projects?: readonly string[]): Promise<Map<string, Indexed>> {
    const out = new Map<string, Indexed>();
    if (!ids.length) return out;
    const scope = projects ? JSON.stringify(projects) : null;
    const rows = await this.locked(() =>
      this.db.all(
        `SELECT l.id AS id, l.project AS project,
                CASE WHEN ? IS NULL OR l.project IN (SELECT value FROM json_each(?)) THEN l.facts END AS facts
           FROM json_each(?) j JOIN lex_ids l ON l.id = j.value`,
        [scope, scope ?? '[]', JSON.stringify(ids)],
      ),
    );
    for (const r of rows) {
      const facts = decodeFacts(r.facts);
      out.set(r.id as string, { project: r.project as string, ...(facts ? { facts } : {}) });
    }
    return out;
  }

  /**
   * Moves documents to another project (a memory promoted to global) where the index holds another one,
   * and writes their facts when given (a status change, a decayed confidence); their words stay. Returns
   * how many moved.
   */
  async setProjects(docs: { id: string; project: string; facts?: RankFacts }[]): Promise<number> {
    if (!docs.length) return 0;
    return this.locked(() =>
      this.transaction(() => {
        let moved = 0;
        for (const d of docs) {
          const old = this.db.get('SELECT rid, kind, project, facts FROM lex_ids WHERE id = ?', [d.id]);
          if (!old) continue;
          const facts = d.facts ? encodeFacts(d.facts) : undefined;
          if (facts !== undefined && facts !== old.facts)
            this.db.run('UPDATE lex_ids SET facts = ? WHERE rid = ?', [facts, old.rid as number]);
          if (old.project === d.project) continue;
          this.db.run('UPDATE lex_ids SET project = ? WHERE rid = ?', [d.project, old.rid as number]);
          this.db.run('UPDATE lex_fts SET scope = ? WHERE rowid = ?', [
            `${projectToken(d.project)} ${kindToken(old.kind as LexicalKind)}`,
            old.rid as number,
          ]);
          moved++;
        }
        return moved;
      }),
    );
  }

  /** Every id of a kind with its project (for reconciliation with Chroma). */
  async projects(kind: LexicalKind): Promise<Map<string, string>> {
    return new Map([...(await this.entries(kind))].map(([id, e]) => [id, e.project]));
  }

  /** Every id of a kind with its project and its facts as stored (JSON; '' when none). */
  async entries(kind: LexicalKind): Promise<Map<string, { project: string; facts: string }>> {
    return this.locked(
      () =>
        new Map(
          this.db
            .all('SELECT id, project, facts FROM lex_ids WHERE kind = ?', [kind])
            .map((r) => [
              r.id as string,
              { project: r.project as string, facts: typeof r.facts === 'string' ? r.facts : '' },
            ]),
        ),
    );
  }

  /** Every id of a kind (for reconciliation with Chroma). */
  async ids(kind: LexicalKind): Promise<Set<string>> {
    return this.locked(
      () => new Set(this.db.all('SELECT id FROM lex_ids WHERE kind = ?', [kind]).map((r) => r.id as string)),
    );
  }

  /**
   * The best `limit` documents of the given projects (and kinds) for a question, best first. The question
   * is segmented here; the full-text query runs on the search thread when one is attached.
   */
  async search(query: string, o: LexicalSearch): Promise<LexicalHit[]> {
    const terms = queryTerms(query);
    if (!terms.length || !o.projects.length || o.limit <= 0) return [];
    const allowed = new Set(o.projects);
    const mine = (hits: LexicalHit[]) => hits.filter((h) => allowed.has(h.project));
    // The scope's phrases score nothing (weight 0), so a hit's BM25 is the same with them or without.
    // Without them, the best `n` overall, filtered to the scope, are the scope's best `limit` whenever at
    // least `limit` of them pass, or when fewer than `n` matched at all: an in-scope row outside them
    // ranks below all of them.
    const key = o.kinds?.length ? undefined : [...allowed].sort().join('\u0000');
    const known = key === undefined ? undefined : this.scopeShare.get(key);
    if (known && known.share < UNSCOPED_SHARE) known.since++;
    if (key !== undefined && (!known || known.share >= UNSCOPED_SHARE || known.since >= SCOPE_REPROBE)) {
      const n = Math.ceil(o.limit / Math.max(known?.share ?? 1, UNSCOPED_SHARE)) * 2;
      const all = await this.run({ terms }, n);
      const hits = mine(all);
      if (!this.scopeShare.has(key) && this.scopeShare.size >= MAX_SCOPE_STATS) this.scopeShare.clear();
      const share = all.length ? hits.length / all.length : 1;
      this.scopeShare.set(key, { share: known ? (known.share + share) / 2 : share, since: 0 });
      if (hits.length >= o.limit || all.length < n) return hits.slice(0, o.limit);
    }
    const scope = `scope : (${o.projects.map((p) => quote(projectToken(p))).join(' OR ')})`;
    const kinds = o.kinds?.length
      ? ` AND scope : (${o.kinds.map((k) => quote(kindToken(k))).join(' OR ')})`
      : '';
    const structured = { projects: [...o.projects], ...(o.kinds?.length ? { kinds: [...o.kinds] } : {}) };
    return mine(await this.run({ filter: `${scope}${kinds}`, scope: structured, terms }, o.limit));
  }

  /** A full-text query on the search thread when one is attached, else here. */
  private run(q: MatchQuery, limit: number): Promise<LexicalHit[]> {
    return this.thread?.alive
      ? this.thread.match(q, limit).catch((e: unknown) => {
          if (this.thread?.alive) throw e; // the query failed, not the thread
          return this.match(q, limit); // the thread is gone: this one from now on
        })
      : this.match(q, limit);
  }

  /**
   * The best `limit` documents for a query's terms (within its filter), best first, ranked by FTS5's BM25
   * over all the terms — exactly, with fewer documents scored (MaxScore, {@link ranked}).
   */
  async match(q: MatchQuery, limit: number): Promise<LexicalHit[]> {
    const rows = await this.locked(() => this.ranked(q, limit));
    return rows.map((r) => {
      const facts = decodeFacts(r.facts);
      return {
        id: r.id as string,
        kind: r.kind as LexicalKind,
        project: r.project as string,
        score: -(r.rank as number),
        ...(facts ? { facts } : {}),
      };
    });
  }

  /**
   * The exact top `limit` under BM25 over all of a query's terms, without scoring every document that
   * holds one of them (MaxScore, Turtle & Flood 1995). A term's share of a document's score is below
   * `idf × (k1 + 1)`, so a document holding only the most common terms C scores below the sum of their
   * bounds. The query first ranks only the documents holding one of the other terms R, with every term
   * still scored: FTS5 gives `ALL NOT (C NOT R)` the same BM25 as `ALL` (its phrases under NOT add
   * nothing; checked row by row in test/unit/lexical.test.ts). When the `limit`-th of those scores at
   * least C's bound, no other document can be among the best: that is the answer. Otherwise that score
   * (a floor of the true one) picks a smaller C that is certain to pass, down to none (every match scored).
   *
   * Over 110k documents whose terms are all common (the bench's), this scored ~27% fewer rows. The
   * documents' frequencies come from one count per term, kept until the full-text index changes.
   */
  private ranked(q: MatchQuery, limit: number): Record<string, unknown>[] {
    const records = readRecords(this.db);
    if (this.mirror && (!q.filter || q.scope)) {
      const best = this.mirror.rank(q.terms, q.scope ?? {}, limit, records);
      if (best) return this.rowsOf(best);
    }
    const stats = this.termStats(q.terms, records);
    // Most common first; a term in no document adds nothing and is left out.
    const live = q.terms
      .filter((t) => (stats.df.get(t) ?? 0) > 0)
      .map((t) => ({ t, bound: scoreBound(stats.docs, stats.df.get(t)!) }))
      .sort((a, b) => a.bound - b.bound);
    if (!live.length) return [];
    const all = live.map((x) => x.t);
    const run = (common: string[]) => {
      const rare = all.slice(common.length);
      const body = common.length ? `${bodyOf(all)} NOT (${bodyOf(common)} NOT ${bodyOf(rare)})` : bodyOf(all);
      return this.db.all(
        `SELECT i.id AS id, i.kind AS kind, i.project AS project, i.facts AS facts, f.rank AS rank
           FROM (SELECT rowid, bm25(lex_fts, 1.0, 0.0) AS rank FROM lex_fts
                  WHERE lex_fts MATCH ? ORDER BY rank, rowid LIMIT ?) f
           JOIN lex_ids i ON i.rid = f.rowid
          ORDER BY f.rank, f.rowid`,
        [q.filter ? `${q.filter} AND (${body})` : body, limit],
      );
    };
    // The longest run of common terms whose bounds stay under `floor`; never all of them.
    const commonUnder = (floor: number) => {
      let sum = 0;
      let j = 0;
      while (j < live.length - 1 && sum + live[j]!.bound < floor) sum += live[j++]!.bound;
      return { common: all.slice(0, j), bound: sum };
    };
    /** The limit-th score of an answer, when it has that many rows. */
    const lastScore = (rows: Record<string, unknown>[]) =>
      rows.length >= limit ? -(rows[limit - 1]!.rank as number) : undefined;
    const certified = (rows: Record<string, unknown>[], bound: number) =>
      (lastScore(rows) ?? -Infinity) >= bound * (1 + 1e-9) + 1e-9;
    const total = live.reduce((a, x) => a + x.bound, 0);
    // Learned from every answer (a guess that skips nothing must still be able to grow again).
    const learn = (r: Record<string, unknown>[]) => {
      const score = lastScore(r);
      if (score !== undefined && total > 0) this.thetaShare = 0.8 * this.thetaShare + (0.2 * score) / total;
      return r;
    };
    const first = commonUnder(total * this.thetaShare * THETA_GUESS_MARGIN);
    if (!first.common.length) return learn(run([]));
    const rows = run(first.common);
    if (certified(rows, first.bound)) return learn(rows);
    // The limit-th score so far is at most the true one: terms whose bounds stay under it can be skipped.
    const floor = lastScore(rows) ?? 0;
    const second = commonUnder(floor * (1 - 1e-9));
    const again = run(second.common);
    if (second.common.length && !certified(again, second.bound)) return learn(run([])); // rounding; never seen
    return learn(again);
  }

  /** The rows `ranked` answers with, for row ids ranked in memory (in their order, rank = -BM25). */
  private rowsOf(best: { rid: number; score: number }[]): Record<string, unknown>[] {
    if (!best.length) return [];
    const byRid = new Map(
      this.db
        .all(
          `SELECT l.rid AS rid, l.id AS id, l.kind AS kind, l.project AS project, l.facts AS facts
             FROM json_each(?) j JOIN lex_ids l ON l.rid = j.value`,
          [JSON.stringify(best.map((b) => b.rid))],
        )
        .map((r) => [Number(r.rid), r]),
    );
    return best.flatMap((b) => {
      const r = byRid.get(b.rid);
      return r ? [{ ...r, rank: -b.score }] : [];
    });
  }

  /** The in-memory postings' state, on the connection that keeps them (tests, the bench). */
  get postings(): PostingsMirror | undefined {
    return this.mirror;
  }

  /**
   * Documents per term (BM25's idf) and the number of documents, counted in the index and kept while its
   * full-text part is unchanged. FTS5 rewrites its averages record (data row 1: the document count, then
   * the tokens per column) on every insert and delete, and its structure record (row 10) whenever a
   * transaction adds a segment: an insert or an update always does.
   */
  private termStats(
    terms: string[],
    { averages, structure }: Records,
  ): { docs: number; df: Map<string, number> } {
    if (!averages.equals(this.stats.averages) || !structure.equals(this.stats.structure))
      this.stats = { averages, structure, docs: averagesOf(averages).rows, df: new Map() };
    // Emptied before, never while, this query's terms are counted: each of them must stay counted.
    if (this.stats.df.size + terms.length > MAX_CACHED_TERMS) this.stats.df.clear();
    for (const t of terms) {
      if (this.stats.df.has(t)) continue;
      const r = this.db.get('SELECT count(*) AS n FROM lex_fts WHERE lex_fts MATCH ?', [
        `body : ${quote(t)}`,
      ]);
      this.stats.df.set(t, Number((r as { n?: unknown } | null)?.n ?? 0));
    }
    return this.stats;
  }

  /**
   * Runs the full-text queries on a worker thread with its own connection to the file, under the same
   * lock file, so a search over 100k turns (~200 ms of synchronous SQLite) does not hold up the JSON-RPC
   * replies and the query embedding meanwhile. When the thread dies, searches run here again.
   */
  searchOnThread(log: (line: string, level: 'info' | 'warn') => void): void {
    this.thread ??= new SearchThread(this.file, log);
  }

  /**
   * Waits until the search thread's in-memory postings are loaded or caught up (the bench: measured
   * searches rank from them, as they do once a sidecar has been up a few seconds); true when they are in use.
   */
  async postingsSettled(): Promise<boolean> {
    return this.thread?.alive ? this.thread.settled() : false;
  }

  close(): void {
    void this.thread?.stop();
    this.thread = undefined;
    if (this.db.isOpen) this.db.close();
  }

  private transaction<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.db.run('DELETE FROM lex_log WHERE seq <= (SELECT max(seq) FROM lex_log) - ?', [LOG_KEEP]);
      this.db.exec('COMMIT');
      return out;
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }
}

/** A read for the search thread (a full-text query, or what the index knows of some ids), and its answer. */
export type ThreadRequest =
  | { id: number; op: 'match'; query: MatchQuery; limit: number }
  | { id: number; op: 'indexed'; ids: string[]; projects?: readonly string[] }
  | { id: number; op: 'members'; kind: LexicalKind; projects: readonly string[]; max: number }
  | { id: number; op: 'count'; kind: LexicalKind }
  | { id: number; op: 'settled' };
export type ThreadReply =
  | { id: number; hits: LexicalHit[] }
  | { id: number; indexed: [string, Indexed][] }
  | { id: number; members: [string, Indexed][] | null }
  | { id: number; count: number }
  | { id: number; error: string }
  | { log: string; level: 'info' | 'warn' }
  | { id: number; settled: boolean };

/**
 * Path of the search thread's script: `lexicalWorker.ts` next to this file from source, `lexicalWorker.js`
 * next to `dist/sidecar.js` in the bundle (a separate esbuild entry).
 */
function lexicalWorkerPath(): string {
  return /\.[cm]?ts$/.test(__filename)
    ? join(__dirname, 'lexicalWorker.ts')
    : join(__dirname, 'lexicalWorker.js');
}

/** The worker thread that runs {@link LexicalIndex.match} on its own connection (lexicalWorker.ts). */
class SearchThread {
  private readonly worker: Worker;
  private readonly pending = new Map<
    number,
    { resolve: (r: ThreadReply) => void; reject: (e: Error) => void }
  >();
  private next = 0;
  alive = true;

  constructor(file: string, log: (line: string, level: 'info' | 'warn') => void) {
    const script = lexicalWorkerPath();
    const opts = { workerData: { file } };
    // From source (tests, the bench in process) the worker is TypeScript, run through tsx's CommonJS hook.
    const boot = `require('tsx/cjs/api').register(); require(${JSON.stringify(script)});`;
    this.worker = /\.[cm]?ts$/.test(script)
      ? new Worker(boot, { ...opts, eval: true })
      : new Worker(script, opts);
    this.worker.unref(); // an idle search thread never keeps the process alive
    this.worker.on('message', (m: ThreadReply) => {
      if ('log' in m) return log(m.log, m.level);
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(m);
    });
    const gone = (why: string) => {
      if (!this.alive) return;
      this.alive = false;
      log(`The lexical search thread ${why}; searches run on the main thread from now on.`, 'warn');
      for (const p of this.pending.values()) p.reject(new Error(`the search thread ${why}`));
      this.pending.clear();
    };
    this.worker.on('error', (e) => gone(`crashed (${e.message})`));
    this.worker.on('exit', (code) => gone(`exited with code ${code}`));
  }

  private ask(req: ThreadRequest): Promise<ThreadReply> {
    return new Promise((resolve, reject) => {
      this.pending.set(req.id, { resolve, reject });
      this.worker.postMessage(req);
    });
  }

  async match(query: MatchQuery, limit: number): Promise<LexicalHit[]> {
    const r = await this.ask({ id: ++this.next, op: 'match', query, limit });
    return 'hits' in r ? r.hits : [];
  }

  async indexed(ids: string[], projects?: readonly string[]): Promise<Map<string, Indexed>> {
    const r = await this.ask({ id: ++this.next, op: 'indexed', ids, ...(projects ? { projects } : {}) });
    return new Map('indexed' in r ? r.indexed : []);
  }

  async members(
    kind: LexicalKind,
    projects: readonly string[],
    max: number,
  ): Promise<Map<string, Indexed> | undefined> {
    const r = await this.ask({ id: ++this.next, op: 'members', kind, projects, max });
    return 'members' in r && r.members ? new Map(r.members) : undefined;
  }

  async count(kind: LexicalKind): Promise<number> {
    const r = await this.ask({ id: ++this.next, op: 'count', kind });
    return 'count' in r ? r.count : 0;
  }

  async settled(): Promise<boolean> {
    const r = await this.ask({ id: ++this.next, op: 'settled' });
    return 'settled' in r && r.settled;
  }

  async stop(): Promise<void> {
    this.alive = false;
    await this.worker.terminate();
  }
}

/** Removes the WebAssembly VFS's lock directory; called only while our own lock is held. */
function clearVfsLock(dir: string): void {
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

/**
 * The index of one data folder, opened on first use. When it cannot be opened (a broken file, a lock
 * held too long), the lexical channel is off for that call and the reason is logged once; recall goes on
 * with its other channels.
 */
export class LazyLexical {
  private opening: Promise<LexicalIndex | undefined> | undefined;
  private warned = false;

  constructor(
    readonly file: string,
    private readonly log: (line: string, level: 'info' | 'warn') => void,
    /** Run the full-text queries on a worker thread ({@link LexicalIndex.searchOnThread}). */
    private readonly searchThread = false,
  ) {}

  index(): Promise<LexicalIndex | undefined> {
    this.opening ??= LexicalIndex.open(this.file).then(
      (ix) => {
        if (this.searchThread) ix.searchOnThread(this.log);
        return ix;
      },
      (e: unknown) => {
        this.opening = undefined; // try again next time
        this.report(
          `The lexical index ${this.file} could not be opened (${e instanceof Error ? e.message : String(e)}); recall uses its other channels.`,
        );
        return undefined;
      },
    );
    return this.opening;
  }

  /** Runs an index operation; a failure is logged (once) and never thrown: the index is derived data. */
  async run<T>(what: string, op: (ix: LexicalIndex) => Promise<T>, fallback: T): Promise<T> {
    const ix = await this.index();
    if (!ix) return fallback;
    try {
      return await op(ix);
    } catch (e) {
      this.report(`Lexical index: could not ${what} (${e instanceof Error ? e.message : String(e)}).`);
      return fallback;
    }
  }

  private report(line: string): void {
    if (this.warned) return;
    this.warned = true;
    this.log(line, 'warn');
  }

  async close(): Promise<void> {
    const ix = await this.opening;
    ix?.close();
    this.opening = undefined;
  }
}
