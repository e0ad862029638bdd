/**
 * The lexical index's postings in memory, for the search thread (lexical.ts): every body term's documents
 * and term frequencies, every document's length, project and kind, scored with FTS5's own BM25 in plain
 * JavaScript. FTS5 in WebAssembly scores a matching row in ~2–3 µs (docs/benchmarks.md); over 110k turns
 * whose query terms each sit in 5–20% of them, that was 44–68 ms a question. Here a posting costs a few
 * nanoseconds, so a question over the same index takes well under a millisecond.
 *
 * It is a copy of what the file holds, never a source: lexical.ts fills it from the file (FTS5's own
 * tokens, read through `fts5vocab`), keeps it in step through the file's change log, checks its document
 * and token counts against FTS5's after every catch-up, and answers from the file whenever it is not
 * known to be current. The scores are FTS5's to the last rounding: the same formula, the same constants,
 * the same order of additions (test/unit/postings.test.ts compares them row by row).
 */
/** What a document of the lexical index is (lexical.ts). */
export type LexicalKind = 'memory' | 'episode';

/** FTS5's BM25 constants (fts5_aux.c, `fts5Bm25Function`). */
const K1 = 1.2;
const B = 0.75;

/** One document as FTS5 tokenized it. */
export interface TokenizedDoc {
  rid: number;
  project: string;
  kind: LexicalKind;
  /** Each body token's count in the document. */
  body: Map<string, number>;
  /** Tokens in every column (FTS5's `xColumnSize(-1)`: the scope column's too). */
  length: number;
}

/** A document's place in the ranking: its row id and BM25 (higher is better). */
export interface RankedRow {
  rid: number;
  score: number;
}

export interface RankScope {
  projects?: readonly string[];
  kinds?: readonly LexicalKind[];
}

/** One term's documents (slots) and frequencies; `n` of the arrays are used, dead slots among them. */
interface TermList {
  slots: Int32Array;
  /** 16 bits in kept lists (a term more often in one row than that is not kept); 32 when read for a question. */
  tf: Uint16Array | Uint32Array;
  n: number;
}

const KINDS: readonly LexicalKind[] = ['memory', 'episode'];
/**
 * A term in fewer rows than this is not kept in memory: most of a real vocabulary (names, numbers, ids) is
 * in a handful of rows, where a kept list (a map entry, an object, two typed arrays) costs far more than its
 * postings and the file reads them at once. Their postings are read from the file when a question asks
 * for them, and kept once they are in this many rows.
 */
export const KEPT_MIN_DOCS = 8;
/** The largest term frequency a kept list holds (16 bits); a term more often in one row is read from the file. */
export const MAX_KEPT_TF = 0xffff;

export class Postings {
  private readonly terms = new Map<string, TermList>();
  /** Per slot: its row id, its length (0 = dead), project and kind. A row id re-added gets a new slot. */
  private rid = new Int32Array(1024);
  private len = new Int32Array(1024);
  private project = new Int32Array(1024);
  private kind = new Uint8Array(1024);
  /** While loading: the slots `lex_ids` described. */
  private described = new Uint8Array(1024);
  private slots = 0;
  private readonly slotOf = new Map<number, number>();
  private readonly projectIds = new Map<string, number>();
  /** Live documents and their tokens (FTS5's row count and total size). */
  docs = 0;
  tokens = 0;
  /** Slots that died since the last compaction (their postings are skipped, then dropped). */
  private deadSlots = 0;
  /** Scratch for scores, by slot. */
  private score = new Float64Array(0);

  /** Terms whose lists are kept. */
  get keptTerms(): number {
    return this.terms.size;
  }

  /**
   * Adds a document (replacing the one with its row id). Its postings are kept for the terms whose lists
   * are kept; the others' stay in the file ({@link rank}'s `fromFile`).
   */
  add(d: TokenizedDoc): void {
    this.remove(d.rid);
    const slot = this.newSlot(d.rid, d.length, d.project, d.kind);
    for (const [term, tf] of d.body) {
      const list = this.terms.get(term);
      if (!list) continue;
      if (tf > MAX_KEPT_TF)
        this.terms.delete(term); // read from the file from now on
      else append(list, slot, tf);
    }
  }

  /** Slots in use (live and dead). */
  get slotCount(): number {
    return this.slots;
  }

  /** The share of slots whose document is gone (their postings linger until compacted or reloaded). */
  get deadShare(): number {
    return this.slots ? this.deadSlots / this.slots : 0;
  }

  /** Takes a document out (its postings stay until their list is next compacted). */
  remove(rid: number): void {
    const slot = this.slotOf.get(rid);
    if (slot === undefined) return;
    this.slotOf.delete(rid);
    this.docs--;
    this.tokens -= this.len[slot]!;
    this.len[slot] = 0;
    this.deadSlots++;
  }

  // ---------------------------------------------------------------- bulk loading, term by term

  /** A document seen while loading: its slot, created on first sight with no length yet. */
  loadingSlot(rid: number): number {
    const known = this.slotOf.get(rid);
    if (known !== undefined) return known;
    return this.newSlot(rid, 0, '', 'memory');
  }

  /** While loading: `n` more tokens of a document (any column). */
  addLength(slot: number, n: number): void {
    this.len[slot]! += n;
    this.tokens += n;
  }

  /** While loading: a term's whole posting list (kept from now on: every later document's too). */
  setTerm(term: string, slots: Int32Array, tf: Uint16Array): void {
    this.terms.set(term, { slots, tf, n: slots.length });
  }

  /** While loading: a row's project and kind, as `lex_ids` has them. */
  setMeta(rid: number, project: string, kind: LexicalKind): void {
    const slot = this.slotOf.get(rid);
    if (slot === undefined) return;
    this.project[slot] = this.projectId(project);
    this.kind[slot] = KINDS.indexOf(kind);
    this.described[slot] = 1;
  }

  /** Ends a load: a row `lex_ids` did not describe (deleted while the load ran) is taken out. */
  finishLoad(): void {
    for (let slot = 0; slot < this.slots; slot++)
      if (!this.described[slot] && this.slotOf.get(this.rid[slot]!) === slot) this.remove(this.rid[slot]!);
    this.described = new Uint8Array(0);
  }

  // ---------------------------------------------------------------- ranking

  /**
   * The best `limit` documents of the scope for these phrases (one token each, in the query's order), by
   * FTS5's `bm25(lex_fts, 1.0, 0.0)`: idf over every document, length over every column, ties by row id.
   * A term whose list is not kept (rare when loaded) is read with `fromFile`: its row ids, one per
   * instance in the body, in row order. `ln`: the natural logarithm FTS5 itself uses (SQLite's `ln()`: the
   * WebAssembly libm differs from `Math.log` in the last bit for ~7% of arguments).
   */
  rank(
    phrases: readonly string[],
    scope: RankScope,
    limit: number,
    fromFile: (term: string) => number[],
    ln: (x: number) => number,
  ): RankedRow[] {
    if (limit <= 0 || !this.docs) return [];
    const projectOk = new Uint8Array(this.projectIds.size + 1);
    if (scope.projects) {
      for (const p of scope.projects) {
        const id = this.projectIds.get(p);
        if (id !== undefined) projectOk[id] = 1;
      }
    } else projectOk.fill(1);
    // a kind this version does not know (a newer writer's) is index 255: in no kind filter, in every unfiltered search
    const kindOk = new Uint8Array(256).fill(scope.kinds ? 0 : 1);
    for (let k = 0; k < KINDS.length; k++)
      kindOk[k] = !scope.kinds || scope.kinds.includes(KINDS[k]!) ? 1 : 0;

    if (this.score.length < this.slots) this.score = new Float64Array(Math.max(this.slots, 1024) * 2);
    const score = this.score;
    const touched: number[] = [];
    const nRow = this.docs;
    const avgdl = this.tokens / nRow;
    const { len, project, kind } = this;
    // Each phrase's list and idf (nHit: the rows holding the term anywhere in the index, every project and
    // kind); summed, as FTS5 sums them in the query the file path sends (lexical.ts `ranked`), most common
    // first: the same additions in the same order give the same bits.
    const terms = phrases.map((term) => {
      const list = this.terms.get(term) ?? this.listOf(term, fromFile(term));
      this.compactIfStale(list);
      let nHit = list.n;
      if (this.deadSlots) {
        nHit = 0;
        for (let i = 0; i < list.n; i++) if (len[list.slots[i]!]! > 0) nHit++;
      }
      let idf = nHit ? ln((nRow - nHit + 0.5) / (nHit + 0.5)) : 0;
      if (idf <= 0) idf = 1e-6;
      return { list, nHit, idf };
    });
    for (const { list, idf } of terms.filter((t) => t.nHit > 0).sort((a, b) => a.idf - b.idf)) {
      const { slots, tf, n } = list;
      for (let i = 0; i < n; i++) {
        const slot = slots[i]!;
        const d = len[slot]!;
        if (d === 0 || !projectOk[project[slot]!] || !kindOk[kind[slot]!]) continue;
        const f = tf[i]!;
        if (score[slot] === 0) touched.push(slot);
        score[slot] += idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * d) / avgdl)));
      }
    }
    const best = topRows(touched, score, this.rid, limit);
    for (const s of touched) score[s] = 0;
    return best;
  }

  // ---------------------------------------------------------------- internals

  private projectId(project: string): number {
    let id = this.projectIds.get(project);
    if (id === undefined) {
      id = this.projectIds.size;
      this.projectIds.set(project, id);
    }
    return id;
  }

  private newSlot(rid: number, length: number, project: string, kind: LexicalKind): number {
    if (!Number.isInteger(rid) || rid < 0 || rid > 0x7fffffff)
      throw new Error(`row id ${rid} is outside what the postings hold`);
    if (this.slots === this.rid.length) this.grow();
    const slot = this.slots++;
    this.rid[slot] = rid;
    this.len[slot] = length;
    this.project[slot] = this.projectId(project);
    this.kind[slot] = KINDS.indexOf(kind);
    this.slotOf.set(rid, slot);
    this.docs++;
    this.tokens += length;
    return slot;
  }

  private grow(): void {
    const n = this.rid.length * 2;
    const widen = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.rid = widen(this.rid, (k) => new Int32Array(k));
    this.len = widen(this.len, (k) => new Int32Array(k));
    this.project = widen(this.project, (k) => new Int32Array(k));
    this.kind = widen(this.kind, (k) => new Uint8Array(k));
    if (this.described.length) this.described = widen(this.described, (k) => new Uint8Array(k));
  }

  /**
   * A term's list from its row ids as the file gives them (one per instance, in row order). One in as many
   * rows as a load keeps is kept from now on (it became common since): the copy is current when asked.
   */
  private listOf(term: string, rids: number[]): TermList {
    const slots: number[] = [];
    const tf: number[] = [];
    let last = -1;
    for (const rid of rids) {
      if (rid === last) {
        tf[tf.length - 1]!++;
        continue;
      }
      last = rid;
      const slot = this.slotOf.get(rid);
      if (slot === undefined) continue; // not a row of this copy: it is checked against the file's counts
      slots.push(slot);
      tf.push(1);
    }
    if (slots.length >= KEPT_MIN_DOCS && tf.every((f) => f <= MAX_KEPT_TF)) {
      const kept = { slots: Int32Array.from(slots), tf: Uint16Array.from(tf), n: slots.length };
      this.terms.set(term, kept);
      return kept;
    }
    return { slots: Int32Array.from(slots), tf: Uint32Array.from(tf), n: slots.length };
  }

  /** Drops a list's dead postings when there are any dead slots at all and a quarter of the list is dead. */
  private compactIfStale(list: TermList): void {
    if (!this.deadSlots) return;
    let live = 0;
    for (let i = 0; i < list.n; i++) if (this.len[list.slots[i]!]! > 0) live++;
    if (live * 4 > list.n * 3) return;
    let j = 0;
    for (let i = 0; i < list.n; i++) {
      const s = list.slots[i]!;
      if (this.len[s]! > 0) {
        list.slots[j] = s;
        list.tf[j] = list.tf[i]!;
        j++;
      }
    }
    list.n = j;
  }
}

function append(list: TermList, slot: number, tf: number): void {
  if (list.n === list.slots.length) {
    const slots = new Int32Array(Math.max(4, list.n * 2));
    slots.set(list.slots);
    const tfs = new Uint16Array(slots.length); // kept lists only: tf <= MAX_KEPT_TF
    tfs.set(list.tf);
    list.slots = slots;
    list.tf = tfs;
  }
  list.slots[list.n] = slot;
  list.tf[list.n] = tf;
  list.n++;
}

/** The `limit` best of the touched slots, by score (higher first), then row id (lower first), as FTS5 orders them. */
function topRows(touched: number[], score: Float64Array, rid: Int32Array, limit: number): RankedRow[] {
  const better = (a: number, b: number) =>
    score[a]! > score[b]! || (score[a] === score[b] && rid[a]! < rid[b]!);
  // a min-heap (worst on top) of at most `limit` slots
  const heap: number[] = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < heap.length && better(heap[w]!, heap[l]!)) w = l;
      if (r < heap.length && better(heap[w]!, heap[r]!)) w = r;
      if (w === i) return;
      [heap[i], heap[w]] = [heap[w]!, heap[i]!];
      i = w;
    }
  };
  for (const s of touched) {
    if (heap.length < limit) {
      heap.push(s);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!better(heap[p]!, heap[i]!)) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
      }
    } else if (better(s, heap[0]!)) {
      heap[0] = s;
      down(0);
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : 1)).map((s) => ({ rid: rid[s]!, score: score[s]! }));
}
