/**
 * The only place that talks to Chroma (through store/chromaConnection.ts, which retries every call through
 * a reconnect when the server died). Memories live in one collection per embedding model + dimension
 * (`mnemo_<model>_<dim>`); `store.json` in the data folder records which collection is active, so a
 * collection never mixes models. Every write checks the vector dimension first. The lexical index is kept
 * in step with every write; recall's use marks are written behind the answers (store/useMarks.ts).
 */
import type { Collection, Metadata, Where } from 'chromadb';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DimensionMismatchError, StoreUnavailableError, errorMessage } from '../shared/errors';
import type { Memory, MemoryStatus } from '../model';
import { inIdBatches } from './idBatches';
import { memoryFacts } from './lexical/facts';
import { FACT_FIELDS, fromMetadata, memoryLexicalDoc, toMetadata } from './memoryCodec';
import { UseMarks } from './useMarks';
import { ChromaConnection } from './chromaConnection';
import { underWriteLock } from './writeLock';
import { LexicalMirror } from './lexicalMirror';
import type { ChromaSupervisor } from './chromaServer';
import { recordErasure } from './erasure';
import { collectionNameFor, StoreState, type ActiveCollection } from './storeState';
import type { IdDistance } from './nearest';
import { NearestMemories, type MemoryHit, type Neighbour } from './nearestMemories';
import { wellFormed } from '../shared/text';

/** What a query of the memories' collection asks, and what it answers. */
type QueryArgs = Parameters<Collection['query']>[0];
type QueryResult = Awaited<ReturnType<Collection['query']>>;

export type { MemoryHit, Neighbour } from './nearestMemories';

export class MemoryStore {
  /** The connection to Chroma: reconnects and restarts the embedded server (store/chromaConnection.ts). */
  private readonly chroma: ChromaConnection;
  private activeInfo: ActiveCollection | undefined;
  private readonly state: StoreState;
  /** Recall's vector channel over memories: how its queries filter by project (store/nearestMemories.ts). */
  private readonly nearestMemories: NearestMemories;
  /** The lexical index kept beside Chroma, memories and episodes (store/lexicalMirror.ts). */
  readonly lexical: LexicalMirror;
  /** The lock file of dedup + insert (see {@link exclusiveWrite}). */
  private readonly writeLock: string;
  /** Recall's "used" marks, written behind the answers (store/useMarks.ts). */
  private readonly uses: UseMarks;

  constructor(
    private readonly supervisor: ChromaSupervisor,
    private readonly dataDir: string,
    private readonly log: (line: string) => void = () => {},
  ) {
    mkdirSync(dataDir, { recursive: true });
    this.state = new StoreState(dataDir);
    this.uses = new UseMarks(this, join(dataDir, 'used.lock'), log);
    this.chroma = new ChromaConnection(supervisor, log);
    // The index may list a scope only while it holds as many memories as the active collection.
    this.lexical = new LexicalMirror(async () => {
      const info = this.known();
      if (!info) return undefined;
      const n = await this.chroma.run('count memories', async (c) =>
        (await this.chroma.collection(c, info)).count(),
      );
      return info.name === this.activeInfo?.name ? n : undefined;
    });
    this.writeLock = join(dataDir, 'write.lock');
    this.activeInfo = this.state.read();
    this.nearestMemories = new NearestMemories({
      lexical: this.lexical,
      query: (vector, where, n) => this.query(vector, where, n),
      nearestIds: (vector, n, among) => this.nearestIds(vector, n, among),
      get: (ids) => this.get(ids),
      unindexGone: (ids) => this.unindexGone(ids),
    });
  }

  private row(id: string, text: string | null, meta: Metadata | null): Memory {
    return this.uses.apply(fromMetadata(id, text, meta));
  }

  /** Counts one use of each memory (recall's "used" mark), written behind the answer (store/useMarks.ts). */
  markUsed(ids: string[], at: string): void {
    this.uses.mark(ids, at);
  }

  /** Runs a dedup decision and the writes it leads to alone on this data folder (store/writeLock.ts). */
  exclusiveWrite<T>(fn: () => Promise<T>): Promise<T> {
    return underWriteLock(this.writeLock, fn);
  }

  /** Writes the used-marks not written yet and resolves when the writes behind are done (writes, dispose, tests). */
  settled(): Promise<void> {
    return this.uses.settled();
  }

  /**
   * Takes out of the lexical index those of these ids that Chroma no longer has (Chroma deletes first,
   * then the index: an id only the index has is a deleted memory).
   */
  private async unindexGone(ids: string[]): Promise<void> {
    const info = this.known();
    if (!info) return;
    const present = await this.chroma.run('check memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      return new Set(
        await inIdBatches(ids, async (batch) => (await col.get({ ids: batch, include: [] })).ids),
      );
    });
    const gone = ids.filter((id) => !present.has(id));
    if (!gone.length) return;
    await this.lexical.remove(gone);
    this.log(
      `${gone.length} deleted memor${gone.length === 1 ? 'y was' : 'ies were'} still in the lexical index; taken out.`,
    );
  }

  /** The collection memories are read from and written to, once known. */
  get active(): ActiveCollection | undefined {
    return this.known();
  }

  /**
   * The active collection: the one this process claimed, or else the one another process (an MCP server,
   * a CLI run) claimed since this one started. Before, a sidecar whose model was still loading listed
   * nothing of what an agent had just stored through `mnemo mcp`.
   */
  private known(): ActiveCollection | undefined {
    return (this.activeInfo ??= this.state.read());
  }

  /** Closes the idle connections to the server's socket (dispose; a later request opens new ones). */
  disconnect(): void {
    this.chroma.disconnect();
  }

  /**
   * Makes sure a collection exists for this model. The first model ever used becomes active; a different
   * model later does not switch the store (that is what re-embedding does) and returns false.
   */
  async useModel(model: string, dim: number): Promise<boolean> {
    this.activeInfo ??= this.state.claim({ name: collectionNameFor(model, dim), model, dim });
    await this.chroma.run('open the memory collection', (c) => this.chroma.collection(c, this.activeInfo!));
    return this.activeInfo.model === model && this.activeInfo.dim === dim;
  }

  /** Switches the active collection (after a complete re-embed). */
  async switchTo(info: ActiveCollection): Promise<void> {
    this.state.switchTo(info);
    this.activeInfo = info;
  }

  private requireActive(): ActiveCollection {
    if (!this.activeInfo)
      throw new StoreUnavailableError(
        'The memory store has no collection yet; it is created with the first memory.',
      );
    return this.activeInfo;
  }

  /** Inserts or replaces memories with their vectors; refuses vectors of the wrong dimension. */
  async upsert(records: { memory: Memory; vector: number[] }[], target?: ActiveCollection): Promise<void> {
    if (records.length === 0) return;
    await this.settled();
    const info = target ?? this.requireActive();
    for (const r of records) {
      if (r.vector.length !== info.dim)
        throw new DimensionMismatchError(info.dim, r.vector.length, info.name);
    }
    await this.chroma.run('store memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      await inIdBatches(records, (batch) =>
        col.upsert({
          ids: batch.map((r) => r.memory.id),
          embeddings: batch.map((r) => r.vector),
          documents: batch.map((r) => wellFormed(r.memory.text)),
          metadatas: batch.map((r) => toMetadata(r.memory)),
        }),
      );
    });
    if (info.name === this.activeInfo?.name)
      await this.lexical.add(records.map((r) => memoryLexicalDoc(r.memory)));
  }

  /**
   * Updates metadata of existing memories (not their text: a new text needs a new vector, use upsert).
   * Passing documents here would make the Chroma client try to embed them itself.
   */
  async updateMetadata(memories: Memory[]): Promise<void> {
    const info = this.known();
    if (memories.length === 0 || !info) return;
    await this.settled();

    await this.chroma.run('update memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      await inIdBatches(memories, (batch) =>
        col.update({ ids: batch.map((m) => m.id), metadatas: batch.map(toMetadata) }),
      );
    });
    await this.lexical.move(
      memories.map((m) => ({ id: m.id, project: m.project_id, facts: memoryFacts(m) })),
    );
  }

  /**
   * Writes only these metadata fields of existing memories (Chroma merges the keys): a counter written
   * here never overwrites a change another writer made to the other fields meanwhile.
   */
  async updateFields(memories: Memory[], fields: readonly (keyof Memory)[]): Promise<void> {
    const info = this.known();
    if (memories.length === 0 || !info) return;

    const keys = new Set<string>(
      fields.flatMap((f) =>
        f === 'created_at'
          ? [f, 'created_ts']
          : f === 'status' || f === 'contested_by' || f === 'flagged_by'
            ? [f, 'in_review']
            : [f],
      ),
    );
    const pick = (m: Memory): Metadata =>
      Object.fromEntries(Object.entries(toMetadata(m)).filter(([k]) => keys.has(k))) as Metadata;
    await this.chroma.run('update memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      await inIdBatches(memories, (batch) =>
        col.update({ ids: batch.map((m) => m.id), metadatas: batch.map(pick) }),
      );
    });
    // recall filters and ranks by the facts in the lexical index: they change with these fields
    if (fields.some((f) => FACT_FIELDS.has(f)))
      await this.lexical.move(
        memories.map((m) => ({ id: m.id, project: m.project_id, facts: memoryFacts(m) })),
      );
  }

  /** Memories by id, with the uses not yet written shown (no read waits for the writes behind). */
  async get(ids: string[]): Promise<Memory[]> {
    return (await this.read(ids)).map((m) => this.uses.apply(m));
  }

  /** {@link get} as stored in Chroma, without the uses not yet written (the counter write reads this). */
  async read(ids: string[]): Promise<Memory[]> {
    const info = this.known();
    if (ids.length === 0 || !info) return [];

    return this.chroma.run('read memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      return inIdBatches(ids, async (batch) => {
        const r = await col.get({ ids: batch, include: ['documents', 'metadatas'] });
        return r.ids.map((id, i) => fromMetadata(id, r.documents[i] ?? null, r.metadatas[i] ?? null));
      });
    });
  }

  /** All memories matching a where (paged internally). */
  async find(
    where: Where | undefined,
    opts: { withVectors?: boolean; collection?: ActiveCollection } = {},
  ): Promise<{ memory: Memory; vector?: number[] }[]> {
    const info = opts.collection ?? this.known();
    if (!info) return [];
    return this.chroma.run('list memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      const out: { memory: Memory; vector?: number[] }[] = [];
      const page = 2000;
      for (let offset = 0; ; offset += page) {
        const r = await col.get({
          where,
          limit: page,
          offset,
          include: opts.withVectors ? ['documents', 'metadatas', 'embeddings'] : ['documents', 'metadatas'],
        });
        r.ids.forEach((id, i) => {
          const memory = this.row(id, r.documents[i] ?? null, r.metadatas[i] ?? null);
          out.push(opts.withVectors ? { memory, vector: Array.from(r.embeddings[i] ?? []) } : { memory });
        });
        if (r.ids.length < page) break;
      }
      return out;
    });
  }

  /** Nearest neighbours of a vector within a where. */
  async query(vector: number[], where: Where | undefined, k: number): Promise<Neighbour[]> {
    const info = this.activeInfo;
    if (!info) return [];
    if (vector.length !== info.dim) throw new DimensionMismatchError(info.dim, vector.length, info.name);
    return this.chroma.run('search memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      const r = await col.query({
        queryEmbeddings: [vector],
        nResults: k,
        where,
        include: ['documents', 'metadatas', 'distances'],
      });
      const ids = r.ids[0] ?? [];
      return ids.map((id, i) => ({
        memory: this.row(id, r.documents[0]?.[i] ?? null, r.metadatas[0]?.[i] ?? null),
        distance: r.distances[0]?.[i] ?? 2,
      }));
    });
  }

  /**
   * The k memories of these projects nearest to a vector with one of these statuses and a confidence above
   * the minimum (store/nearestMemories.ts: through the lexical index's facts first, Chroma's filters last).
   */
  nearest(
    vector: number[],
    projects: string[],
    k: number,
    only: { status: MemoryStatus[]; min_confidence: number },
  ): Promise<MemoryHit[]> {
    return this.nearestMemories.find(vector, projects, k, only);
  }

  /** The ids and distances of the n nearest memories (of these ids only, when given), without their payload. */
  async nearestIds(vector: number[], n: number, among?: string[]): Promise<IdDistance[]> {
    return (await this.nearestIdsMany([vector], n, among))[0] ?? [];
  }

  /** {@link nearestIds} of several vectors, in one Chroma call. */
  nearestIdsMany(vectors: number[][], n: number, among?: string[]): Promise<IdDistance[][]> {
    return this.queryActive(
      vectors,
      { nResults: n, ...(among ? { ids: among } : {}), include: ['distances'] },
      (id, i, r, q) => ({ id, distance: r.distances[q]?.[i] ?? 2 }),
    );
  }

  /**
   * One Chroma query of several vectors in the active collection (nothing when there is none), each
   * answer's rows read by `row` (id, its rank, the result, the vector's index).
   */
  private async queryActive<T>(
    vectors: number[][],
    ask: Omit<QueryArgs, 'queryEmbeddings'>,
    row: (id: string, i: number, r: QueryResult, q: number) => T,
  ): Promise<T[][]> {
    const info = this.queryable(vectors);
    if (!info) return vectors.map(() => []);
    return this.chroma.run('search memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      const r = await col.query({ queryEmbeddings: vectors, ...ask });
      return vectors.map((_, q) => (r.ids[q] ?? []).map((id, i) => row(id, i, r, q)));
    });
  }

  /** The active collection, when there is one and there are vectors to ask it; each of its dimension. */
  private queryable(vectors: number[][]): ActiveCollection | undefined {
    const info = this.activeInfo;
    if (!info || vectors.length === 0) return undefined;
    for (const v of vectors)
      if (v.length !== info.dim) throw new DimensionMismatchError(info.dim, v.length, info.name);
    return info;
  }

  /** Nearest neighbours of several vectors within one where, in one Chroma call (bulk import's dedup). */
  queryMany(vectors: number[][], where: Where | undefined, k: number): Promise<Neighbour[][]> {
    return this.queryActive(
      vectors,
      { nResults: k, where, include: ['documents', 'metadatas', 'distances'] },
      (id, i, r, q) => ({
        memory: this.row(id, r.documents[q]?.[i] ?? null, r.metadatas[q]?.[i] ?? null),
        distance: r.distances[q]?.[i] ?? 2,
      }),
    );
  }

  /**
   * Notes ids whose earlier text must leave Chroma's log (deleted, or given a new text): the next start
   * of the embedded server, or `mnemo compact`, purges their old rows (store/erasure.ts). Written before
   * the change, so a crash in between still purges. A remote server keeps its own log.
   */
  noteErased(ids: readonly string[]): void {
    if (ids.length && !this.supervisor.isRemote) recordErasure(this.dataDir, ids);
  }

  async delete(ids: string[], target?: ActiveCollection): Promise<void> {
    const info = target ?? this.activeInfo;
    if (ids.length === 0 || !info) return;
    await this.settled();
    this.uses.forget(ids);
    this.noteErased(ids);
    await this.chroma.run('delete memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      await inIdBatches(ids, async (batch) => void (await col.delete({ ids: batch })));
    });
    if (info.name === this.activeInfo?.name) {
      await this.lexical.remove(ids);
      await this.eraseFromKept(ids);
    }
  }

  /**
   * Removes ids from every other Mnemo collection on this server: the collections a re-embed left behind
   * (never read again; switching back re-embeds afresh) and one being built. A deleted memory or episode,
   * or the old text of an edited one, must not survive there (issue 16, erasure).
   */
  async eraseFromKept(ids: readonly string[]): Promise<void> {
    const active = this.activeInfo?.name;
    if (ids.length === 0 || !active) return;
    const activeEpisodes = active.replace(/^mnemo_/, 'mnemo_ep_');
    await this.chroma.run('erase from older collections', async (c) => {
      for (let offset = 0; ; offset += 100) {
        const cols = await c.listCollections({ limit: 100, offset });
        for (const col of cols) {
          if (!col.name.startsWith('mnemo_') || col.name === active || col.name === activeEpisodes) continue;
          await inIdBatches(ids, async (batch) => void (await col.delete({ ids: batch })));
        }
        if (cols.length < 100) break;
      }
    });
  }

  /** How many memories (with `where`: how many match it; only their ids are read). */
  async count(where?: Where): Promise<number> {
    const info = this.activeInfo;
    if (!info) return 0;
    return this.chroma.run('count memories', async (c) => {
      const col = await this.chroma.collection(c, info);
      return where ? (await col.get({ where, include: [] })).ids.length : col.count();
    });
  }

  /** Runs an operation on another collection on this store's server (the episodes of the active model). */
  async onCollection<T>(
    info: ActiveCollection,
    what: string,
    op: (col: Collection) => Promise<T>,
  ): Promise<T> {
    return this.chroma.run(what, async (c) => op(await this.chroma.collection(c, info)));
  }

  /** Drops a whole collection (a finished or abandoned re-embed target). */
  async dropCollection(name: string): Promise<void> {
    await this.chroma.run('drop a collection', async (c) => {
      this.chroma.forget(name);
      try {
        await c.deleteCollection({ name });
      } catch (e) {
        if (
          (e as { name?: string })?.name !== 'ChromaNotFoundError' &&
          !/not found|does not exist/i.test(errorMessage(e))
        )
          throw e;
      }
    });
  }

  /** Opens (creating) a collection other than the active one, for re-embedding. */
  async prepare(info: ActiveCollection): Promise<void> {
    await this.chroma.run('create a collection', (c) => this.chroma.collection(c, info));
  }
}
