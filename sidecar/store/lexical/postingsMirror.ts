/**
 * Keeps the search thread's in-memory postings (postings.ts) in step with the index file, and answers a
 * ranking from them only while they are known to match it.
 *
 * - **Load.** FTS5's own tokens are read through an `fts5vocab` instance table, a few hundred terms at a
 *   time with each term's documents joined in SQL (each read under the file lock, the thread free for
 *   other requests between them); then each row's length from FTS5's `docsize`, its project and kind
 *   from `lex_ids`.
 * - **Catch up.** Every writer logs the row ids it touches in `lex_log`, in the same transaction (lexical.ts).
 *   A search first compares FTS5's averages and structure records with the ones it last saw: unchanged, the
 *   copy is current; changed, the logged rows since then are re-read and tokenized by FTS5 itself (a
 *   temporary FTS5 table with the same tokenizer), a few at once on the question's path, many behind it.
 * - **Check.** After every catch-up the copy's document and token counts must equal FTS5's (its averages
 *   record); otherwise it is loaded again, and after {@link MAX_FAILED_LOADS} such loads it is left off.
 * - Whatever is not known current (loading, a long catch-up, a log trimmed past what was read, a query
 *   phrase of several tokens) is answered from the file: the copy is never a source of truth.
 */
import type { Database } from 'node-sqlite3-wasm';
import {
  KEPT_MIN_DOCS,
  MAX_KEPT_TF,
  Postings,
  type LexicalKind,
  type RankedRow,
  type RankScope,
  type TokenizedDoc,
} from './postings';

/** How the log line that says the postings are loaded starts (the bench waits for it). */
export const LOADED = 'Lexical search ranks from memory now:';
/** FTS5's tokenizer of the index (lexical.ts creates `lex_fts` with it; tokenizing here must be the same). */
export const FTS_TOKENIZER = 'porter unicode61 remove_diacritics 2';
/**
 * Rows caught up on the question's path (FTS5 tokenizes a row in ~0.4 ms here, so at most ~15 ms); more are
 * caught up behind it while the file answers.
 */
const CATCH_UP_NOW = 32;
/** Rows tokenized at once behind the question's path. */
const CATCH_UP_CHUNK = 2_000;
/** Terms, and rows, read from the index at once while loading (each read under the lock). */
const LOAD_TERMS = 256;
const LOAD_ROWS = 20_000;
/** Query terms whose tokens are remembered. */
const MAX_PHRASES = 4096;
/** How long after a failed load the next is tried. */
const RETRY_MS = 60_000;
/** Loads whose counts disagreed with FTS5's before the copy is left off for this process. */
const MAX_FAILED_LOADS = 3;

type Locked = <T>(fn: () => T) => Promise<T>;

export interface Records {
  averages: Buffer;
  structure: Buffer;
}

/** SQLite's varint (big-endian, 7 bits a byte, the ninth byte whole), as FTS5 writes its records; with the bytes read. */
function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8 && at + i < b.length; i++) {
    v = v * 128 + (b[at + i]! & 0x7f);
    if (!(b[at + i]! & 0x80)) return [v, i + 1];
  }
  return at + 8 < b.length ? [v * 256 + b[at + 8]!, 9] : [v, 8];
}

/**
 * FTS5's averages record: the row count, then the tokens of each column; with `sizesOnly`, a row's
 * `docsize` record (the tokens of each column alone).
 */
export function averagesOf(record: Uint8Array, sizesOnly = false): { rows: number; tokens: number } {
  if (!record.length) return { rows: 0, tokens: 0 };
  const [rows, first] = sizesOnly ? [0, 0] : varint(record, 0);
  let at = first;
  let tokens = 0;
  while (at < record.length) {
    const [n, used] = varint(record, at);
    tokens += n;
    at += used;
  }
  return { rows, tokens };
}

/** FTS5's averages record (data row 1) and structure record (row 10), as they are now. */
export function readRecords(db: Database): Records {
  const blocks = new Map(
    db
      .all('SELECT id, block FROM lex_fts_data WHERE id IN (1, 10)')
      .map((r) => [r.id, r.block instanceof Uint8Array ? Buffer.from(r.block) : Buffer.alloc(0)]),
  );
  return { averages: blocks.get(1) ?? Buffer.alloc(0), structure: blocks.get(10) ?? Buffer.alloc(0) };
}

const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

export class PostingsMirror {
  private postings: Postings | undefined;
  /** The last `lex_log` entry applied, and the records seen then. */
  private seq = 0;
  private seen: Records = { averages: Buffer.alloc(0), structure: Buffer.alloc(0) };
  private work: Promise<void> | undefined;
  private failedLoads = 0;
  private retryAt = 0;
  private tempReady = false;
  /** Query terms as FTS5 tokenizes them (null: not one token); the tokenizer never changes. */
  private readonly phraseToken = new Map<string, string | null>();
  /** Searches answered from memory and from the file (for the bench and tests). */
  readonly answered = { memory: 0, file: 0 };

  constructor(
    private readonly db: Database,
    private readonly locked: Locked,
    private readonly log: (line: string, level: 'info' | 'warn') => void = () => {},
  ) {}

  /** Terms whose postings are kept in memory (0 while none are loaded). */
  get keptTerms(): number {
    return this.postings?.keptTerms ?? 0;
  }

  /** True once a load finished and the copy matched the file then. */
  get ready(): boolean {
    return this.postings !== undefined;
  }

  /** Waits for the load or catch-up under way (tests, the bench). */
  async settled(): Promise<void> {
    while (this.work) await this.work;
  }

  /**
   * Starts loading when nothing is loaded or under way (the thread calls it at open) — not after
   * {@link MAX_FAILED_LOADS} loads in a row disagreed with the file, nor within {@link RETRY_MS} of a
   * load that failed (a lock held long by a writer's VACUUM, say).
   */
  warm(): void {
    if (this.postings || this.work || this.failedLoads >= MAX_FAILED_LOADS) return;
    if (performance.now() < this.retryAt) return;
    this.behind(() => this.load());
  }

  /**
   * The best `limit` row ids for these query terms within the scope, from memory — or undefined when the
   * copy is not known to match the file right now (then a load or catch-up is started behind). Runs with
   * the file lock held.
   */
  rank(terms: readonly string[], scope: RankScope, limit: number, records: Records): RankedRow[] | undefined {
    let answer: RankedRow[] | undefined;
    try {
      answer = this.rankHere(terms, scope, limit, records);
    } catch (e) {
      // whatever broke (a statement of the catch-up, say), the file answers and the copy is loaded anew
      this.postings = undefined;
      this.retryAt = performance.now() + RETRY_MS;
      this.log(
        `The in-memory lexical postings failed (${e instanceof Error ? e.message : String(e)}); searches read the index file until they are loaded again.`,
        'warn',
      );
    }
    this.answered[answer ? 'memory' : 'file']++;
    return answer;
  }

  private rankHere(
    terms: readonly string[],
    scope: RankScope,
    limit: number,
    records: Records,
  ): RankedRow[] | undefined {
    if (!this.postings || this.work) {
      this.warm();
      return undefined;
    }
    if (!records.averages.equals(this.seen.averages) || !records.structure.equals(this.seen.structure)) {
      const log = this.logSpan();
      const behind = log.last - this.seq;
      // Trimmed past what was read, more than a quarter of the rows changed (loading is quicker), or a
      // quarter of the slots hold rows that are gone (loading frees them).
      if (
        log.gap ||
        (behind > CATCH_UP_NOW && behind > this.postings.docs / 4) ||
        (this.postings.slotCount > 1000 && this.postings.deadShare > 0.25)
      ) {
        this.postings = undefined;
        this.warm();
        return undefined;
      }
      if (behind > CATCH_UP_NOW) {
        this.behind(async () => {
          const t0 = performance.now();
          await this.catchUp();
          if (this.postings) this.logReady(`caught up with ${behind} changes in ${seconds(t0)}`);
        });
        return undefined;
      }
      this.applyLogged(log.last);
      if (!this.matches(records)) return undefined;
    }
    const phrases = this.tokenizePhrases(terms);
    if (!phrases) return undefined;
    return this.postings.rank(
      phrases,
      scope,
      limit,
      (term) =>
        this.db
          .all("SELECT doc FROM temp.lex_vocab WHERE term = ? AND col = 'body'", [term])
          .map((r) => Number(r.doc)),
      (x) => Number(this.db.get('SELECT ln(?) AS v', [x])?.v),
    );
  }

  /** Runs a load or catch-up behind the question's path; a failure leaves the copy off until the next try. */
  private behind(job: () => Promise<void>): void {
    if (this.work) return;
    this.work = job()
      .catch((e: unknown) => {
        this.postings = undefined;
        this.retryAt = performance.now() + RETRY_MS;
        this.log(
          `The in-memory lexical postings could not be loaded (${e instanceof Error ? e.message : String(e)}); searches read the index file, and loading is tried again in a minute.`,
          'warn',
        );
      })
      .finally(() => {
        this.work = undefined;
      });
  }

  private logSpan(): { first: number; last: number; gap: boolean } {
    const r = this.db.get('SELECT min(seq) AS first, max(seq) AS last FROM lex_log');
    const first = Number(r?.first ?? 0);
    const last = Number(r?.last ?? 0);
    // entries after ours were trimmed before we read them
    return { first, last, gap: last > this.seq && first > this.seq + 1 };
  }

  /** The copy's counts equal FTS5's: it is current, and these records are the ones it matches. */
  private matches(records: Records): boolean {
    const fts = averagesOf(records.averages);
    const p = this.postings!;
    if (fts.rows !== p.docs || fts.tokens !== p.tokens) {
      this.postings = undefined;
      this.failedLoads++;
      this.log(
        `The in-memory lexical postings disagree with the index (${p.docs} rows, ${p.tokens} tokens; the index ${fts.rows}, ${fts.tokens}); loading them again.`,
        'warn',
      );
      this.warm();
      return false;
    }
    this.seen = records;
    return true;
  }

  // ---------------------------------------------------------------- loading

  private async load(): Promise<void> {
    const t0 = performance.now();
    const postings = new Postings();
    const scratch = { slots: new Int32Array(1024), tf: new Uint16Array(1024) };
    const start = await this.locked(() => {
      this.ensureTemp();
      return this.logSpan().last;
    });
    // Each body term's documents, a few hundred terms at a time: FTS5 streams them in term order and
    // joins each term's document ids (one per instance, so a repeated id is the term's frequency).
    for (let from = ''; ; ) {
      const rows = await this.locked(() =>
        this.db.all(
          `SELECT term, group_concat(doc, ' ') AS docs FROM temp.lex_vocab
            WHERE col = 'body' AND term > ? GROUP BY term LIMIT ?`,
          [from, LOAD_TERMS],
        ),
      );
      for (const r of rows) addTerm(postings, r.term as string, r.docs as string, scratch);
      if (rows.length < LOAD_TERMS) break;
      from = rows[rows.length - 1]!.term as string;
      await new Promise<void>((r) => setImmediate(r)); // the thread answers what waits meanwhile
    }
    // Every row's length in tokens (FTS5's own per-row sizes: a varint per column).
    for (let from = -Infinity; ; ) {
      const rows = await this.locked(() =>
        this.db.all('SELECT id, sz FROM lex_fts_docsize WHERE id > ? ORDER BY id LIMIT ?', [from, LOAD_ROWS]),
      );
      for (const r of rows) {
        const sz = r.sz instanceof Uint8Array ? r.sz : new Uint8Array(0);
        postings.addLength(postings.loadingSlot(Number(r.id)), averagesOf(sz, true).tokens);
      }
      if (rows.length < LOAD_ROWS) break;
      from = Number(rows[rows.length - 1]!.id);
      await new Promise<void>((r) => setImmediate(r));
    }
    // Every row's project and kind.
    for (let from = -Infinity; ; ) {
      const rows = await this.locked(() =>
        this.db.all('SELECT rid, project, kind FROM lex_ids WHERE rid > ? ORDER BY rid LIMIT ?', [
          from,
          LOAD_ROWS,
        ]),
      );
      for (const r of rows) postings.setMeta(Number(r.rid), r.project as string, r.kind as LexicalKind);
      if (rows.length < LOAD_ROWS) break;
      from = Number(rows[rows.length - 1]!.rid);
      await new Promise<void>((r) => setImmediate(r));
    }
    postings.finishLoad();
    this.postings = postings;
    this.seq = start;
    this.seen = { averages: Buffer.alloc(0), structure: Buffer.alloc(0) };
    await this.catchUp();
    if (this.postings) this.logReady(`loaded in ${seconds(t0)}`);
  }

  private logReady(how: string): void {
    const { docs, keptTerms } = this.postings!;
    this.log(`${LOADED} ${docs} rows, ${keptTerms} terms kept, ${how}.`, 'info');
  }

  /** Applies everything logged since the last catch-up, a chunk under the lock at a time, then checks the counts. */
  private async catchUp(): Promise<void> {
    for (;;) {
      const done = await this.locked(() => {
        if (!this.postings) return true;
        const log = this.logSpan();
        if (log.gap) throw new Error('the change log was trimmed past what this copy read');
        if (log.last - this.seq > CATCH_UP_CHUNK) {
          this.applyLogged(this.seq + CATCH_UP_CHUNK);
          return false;
        }
        this.applyLogged(log.last);
        const ok = this.matches(readRecords(this.db));
        if (ok) this.failedLoads = 0;
        return true;
      });
      if (done) return;
      await new Promise<void>((r) => setImmediate(r));
    }
  }

  /** Re-reads the rows logged after {@link seq} up to `upTo` (with the lock held). */
  private applyLogged(upTo: number): void {
    const rids = this.db
      .all('SELECT DISTINCT rid FROM lex_log WHERE seq > ? AND seq <= ?', [this.seq, upTo])
      .map((r) => Number(r.rid));
    this.apply(rids);
    this.seq = upTo;
  }

  /**
   * Takes these rows out and puts back those the file still holds, tokenized by FTS5: copied in one
   * statement into a temporary FTS5 table with the index's tokenizer, whose instances are then read.
   */
  private apply(rids: number[]): void {
    const postings = this.postings!;
    for (const rid of rids) postings.remove(rid);
    if (!rids.length) return;
    this.ensureTemp();
    const list = JSON.stringify(rids);
    const docs = new Map<number, TokenizedDoc>();
    for (const r of this.db.all(
      'SELECT l.rid AS rid, l.project AS project, l.kind AS kind FROM json_each(?) j JOIN lex_ids l ON l.rid = j.value',
      [list],
    )) {
      const rid = Number(r.rid);
      docs.set(rid, {
        rid,
        project: r.project as string,
        kind: r.kind as LexicalKind,
        body: new Map(),
        length: 0,
      });
    }
    try {
      this.db.run(
        `INSERT INTO temp.lex_tok (rowid, body, scope)
           SELECT f.rowid, f.body, f.scope FROM json_each(?) j JOIN lex_fts f ON f.rowid = j.value`,
        [list],
      );
      for (const t of this.db.all('SELECT term, doc, col FROM temp.lex_tok_vocab')) {
        const d = docs.get(Number(t.doc));
        if (!d) continue; // in lex_fts without lex_ids: the counts check catches it
        d.length++;
        if (t.col === 'body') d.body.set(t.term as string, (d.body.get(t.term as string) ?? 0) + 1);
      }
    } finally {
      this.db.exec('DELETE FROM temp.lex_tok');
    }
    for (const d of docs.values()) if (d.length) postings.add(d);
  }

  // ---------------------------------------------------------------- FTS5 as the tokenizer

  private ensureTemp(): void {
    if (this.tempReady) return;
    this.db.exec('PRAGMA temp_store = MEMORY');
    this.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS temp.lex_vocab USING fts5vocab(main, lex_fts, instance);
       CREATE VIRTUAL TABLE IF NOT EXISTS temp.lex_tok USING fts5(body, scope, tokenize = '${FTS_TOKENIZER}');
       CREATE VIRTUAL TABLE IF NOT EXISTS temp.lex_tok_vocab USING fts5vocab(temp, lex_tok, instance);`,
    );
    this.tempReady = true;
  }

  /** Each query term as the one token FTS5 matches it by, or undefined when one is not exactly one token. */
  private tokenizePhrases(terms: readonly string[]): string[] | undefined {
    const todo = terms.filter((t) => !this.phraseToken.has(t));
    if (todo.length) {
      this.ensureTemp();
      const tokens: string[][] = todo.map(() => []);
      try {
        todo.forEach((t, i) =>
          this.db.run('INSERT INTO temp.lex_tok (rowid, body, scope) VALUES (?, ?, ?)', [i + 1, t, '']),
        );
        for (const r of this.db.all('SELECT term, doc FROM temp.lex_tok_vocab'))
          tokens[Number(r.doc) - 1]!.push(r.term as string);
      } finally {
        this.db.exec('DELETE FROM temp.lex_tok');
      }
      if (this.phraseToken.size + todo.length > MAX_PHRASES) this.phraseToken.clear();
      todo.forEach((t, i) => this.phraseToken.set(t, tokens[i]!.length === 1 ? tokens[i]![0]! : null));
    }
    const out: string[] = [];
    for (const t of terms) {
      const token = this.phraseToken.get(t);
      if (!token) return undefined;
      out.push(token);
    }
    return out;
  }
}

/**
 * Adds a term's postings to a load from FTS5's document ids, one per instance, in document order — when it
 * is in at least {@link KEPT_MIN_DOCS} documents; a rarer term is read from the file when asked for.
 */
function addTerm(
  postings: Postings,
  term: string,
  docs: string,
  scratch: { slots: Int32Array; tf: Uint16Array },
): void {
  let n = 0;
  let last = -1;
  let v = 0;
  for (let i = 0; i <= docs.length; i++) {
    const c = i < docs.length ? docs.charCodeAt(i) : 32;
    if (c !== 32) {
      v = v * 10 + (c - 48);
      continue;
    }
    if (v === last) {
      if (scratch.tf[n - 1] === MAX_KEPT_TF) return; // more often in one row than a kept list holds: read from the file
      scratch.tf[n - 1]!++;
    } else {
      if (n === scratch.slots.length) {
        const slots = new Int32Array(n * 2);
        slots.set(scratch.slots);
        const tf = new Uint16Array(n * 2);
        tf.set(scratch.tf);
        scratch.slots = slots;
        scratch.tf = tf;
      }
      scratch.slots[n] = postings.loadingSlot(v);
      scratch.tf[n] = 1;
      n++;
      last = v;
    }
    v = 0;
  }
  if (n >= KEPT_MIN_DOCS) postings.setTerm(term, scratch.slots.slice(0, n), scratch.tf.slice(0, n));
}
