/**
 * The only place that talks to Chroma. Memories live in one collection per embedding model + dimension
 * (`mnemo_<model>_<dim>`); `store.json` in the data folder records which collection is active, so a
 * collection never mixes models. Every Chroma call is retried through a reconnect when the server died
 * (the supervisor restarts it), and every write checks the vector dimension first.
 */
import { ChromaClient, type Collection, type Metadata, type Where } from 'chromadb';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DimensionMismatchError, StoreUnavailableError, errorMessage } from '../shared/errors';
import type { Memory, MemoryStatus } from '../model';
import { memoryFacts, type MemoryFacts } from '../recall/facts';
import type { Indexed, LazyLexical, LexicalDoc } from '../recall/lexical';
import { inIdBatches } from './idBatches';
import { FACT_FIELDS, fromMetadata, memoryLexicalDoc, toMetadata } from './memoryCodec';
import { UseMarks } from './useMarks';
import { buildWhere } from './where';
import type { ChromaSupervisor, ChromaEndpoint } from './chromaServer';
import { recordErasure } from './erasure';
import { collectionNameFor, StoreState, type ActiveCollection } from './storeState';
import { socketClient, type SocketClient } from './socketFetch';
import { MAX_LISTED, NearestPlanner, readBackInScope, type IdDistance, type Known } from './nearest';
import { isNoSpace, writeFailure } from '../util/append';
import { LockTimeoutError, withLock } from '../util/fileLock';
import { wellFormed } from '../shared/text';

export interface Neighbour {
  memory: Memory;
  /** Cosine distance 0..2 (0 = same direction). */
  distance: number;
}

/**
 * A memory as recall's vector channel finds it: its id, distance and what it is filtered and ranked by
 * (recall/facts.ts); the memory itself only when it was read from Chroma anyway.
 */
export interface MemoryHit {
  id: string;
  distance: number;
  project: string;
  facts: MemoryFacts;
  memory?: Memory;
}

const hitOf = (memory: Memory, distance: number): MemoryHit => ({
  id: memory.id,
  distance,
  project: memory.project_id,
  facts: memoryFacts(memory),
  memory,
});

/** Chroma's transient "Error creating hnsw segment reader: Nothing found on disk" on a fresh collection. */
function isSegmentNotReady(e: unknown): boolean {
  return /hnsw segment reader|Nothing found on disk/i.test(
    `${errorMessage(e)} ${errorMessage((e as { cause?: unknown })?.cause ?? '')}`,
  );
}

function isConnectionError(e: unknown): boolean {
  const name = (e as { name?: string })?.name ?? '';
  const msg = errorMessage(e);
  const cause = errorMessage((e as { cause?: unknown })?.cause ?? '');
  return (
    // Also a request to the socket of a server that is gone (socketFetch.ts; e.g. the process that
    // started it exited and stopped it): reconnecting adopts or starts a server.
    name === 'ChromaConnectionError' ||
    /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|other side closed|UND_ERR|Failed to connect/i.test(
      msg + ' ' + cause,
    )
  );
}

/** Chroma 1.0's answer to a query restricted to ids when one of them is not in the collection. */
const MISSING_ID = /Error finding id/i;

/**
 * How often recall checks that the lexical index holds every memory of the store (its count against
 * Chroma's), before a scope is listed from it (store/nearest.ts, "listed").
 */
const LISTING_CHECK_MS = 5_000;

/** The index's entries of memories, with only a memory's facts kept. */
function memoryKnown(indexed: Map<string, Indexed>): Map<string, Known<MemoryFacts>> {
  const out = new Map<string, Known<MemoryFacts>>();
  for (const [id, x] of indexed)
    out.set(id, x.facts?.kind === 'memory' ? { project: x.project, facts: x.facts } : { project: x.project });
  return out;
}

export class MemoryStore {
  private client: ChromaClient | undefined;
  private clientKey = '';
  /** The client over an embedded server's socket (socketFetch.ts), when it has one: its connections. */
  private socket: SocketClient | undefined;
  /** Whether the next request checks the server first (after a request could not reach it). */
  private recheck = false;
  private collections = new Map<string, Collection>();
  /** Whether the lexical index was last found to hold every memory ({@link listingTrusted}). */
  private listing: { ok: boolean; at: number; checking?: Promise<void> } = { ok: false, at: 0 };
  private activeInfo: ActiveCollection | undefined;
  private readonly state: StoreState;
  /** Chooses how nearest-neighbour queries filter by project (store/nearest.ts). */
  private readonly planner = new NearestPlanner();
  /** The lexical index kept beside Chroma (memories and episodes); see recall/lexical.ts. */
  private lexical: LazyLexical | undefined;
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
    this.writeLock = join(dataDir, 'write.lock');
    this.activeInfo = this.state.read();
  }

  private row(id: string, text: string | null, meta: Metadata | null): Memory {
    return this.uses.apply(fromMetadata(id, text, meta));
  }

  /** Counts one use of each memory (recall's "used" mark), written behind the answer (store/useMarks.ts). */
  markUsed(ids: string[], at: string): void {
    this.uses.mark(ids, at);
  }

  /**
   * Runs a dedup decision and the writes it leads to (ingest, remember, bulk import) alone on this data
   * folder: two processes ingesting the same facts at once never both find "nothing similar yet" and each
   * add a near-duplicate. (The writes behind take the counter lock, never this one: no cycle.)
   */
  async exclusiveWrite<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await withLock(this.writeLock, 120_000, fn);
    } catch (e) {
      if (e instanceof LockTimeoutError)
        throw new StoreUnavailableError(
          'Another Mnemo process has been writing to the store for two minutes.',
          {
            cause: e,
          },
        );
      // A full disk while taking the lock (its pid cannot be written) is a store outage, not a bad
      // capture: the capture stays queued and is retried when there is room, never dropped.
      if (isNoSpace(e)) throw writeFailure("the store's write lock", e);
      throw e;
    }
  }

  /** Writes the used-marks not written yet and resolves when the writes behind are done (writes, dispose, tests). */
  settled(): Promise<void> {
    return this.uses.settled();
  }

  /** Keeps the lexical index in step with every write and delete of this store. */
  attachLexical(lexical: LazyLexical): void {
    this.lexical = lexical;
  }

  get lexicalIndex(): LazyLexical | undefined {
    return this.lexical;
  }

  /** Adds documents to the lexical index (never throws: the index is derived data). */
  async indexLexical(docs: LexicalDoc[]): Promise<void> {
    if (docs.length) await this.lexical?.run('index documents', (ix) => ix.upsert(docs), undefined);
  }

  /** Removes every lexical row of a project (memories and episodes) and compacts the index file. */
  async unindexProject(project: string): Promise<number> {
    const n = await this.lexical?.run('remove a project', (ix) => ix.removeProject(project), 0);
    await this.compactLexical();
    return n ?? 0;
  }

  /** Rewrites the lexical index file so deleted words are gone from disk (erasure). */
  async compactLexical(): Promise<void> {
    await this.lexical?.run('compact the index', (ix) => ix.compact(), undefined);
  }

  /**
   * Moves documents to their current project in the lexical index (promotion) and writes their facts when
   * given (a status change, decay); returns how many moved.
   */
  async moveLexical(docs: { id: string; project: string; facts?: LexicalDoc['facts'] }[]): Promise<number> {
    if (!docs.length) return 0;
    return (await this.lexical?.run('move documents', (ix) => ix.setProjects(docs), 0)) ?? 0;
  }

  /**
   * The project and facts (with `projects`: only for ids of those projects) of each of these ids as the
   * lexical index knows them (ids it lacks are left out; all of them when the index is off): recall filters and ranks the vector channels' neighbours with them
   * and reads from Chroma only what it answers with.
   */
  async lexicalIndexed(ids: string[], projects?: readonly string[]): Promise<Map<string, Indexed>> {
    if (!ids.length || !this.lexical) return new Map();
    return this.lexical.run('read projects', (ix) => ix.indexed(ids, projects), new Map<string, Indexed>());
  }

  /**
   * Takes out of the lexical index those of these ids that Chroma no longer has (Chroma deletes first,
   * then the index: an id only the index has is a deleted memory).
   */
  private async unindexGone(ids: string[]): Promise<void> {
    const info = this.known();
    if (!info) return;
    const present = await this.withChroma('check memories', async (c) => {
      const col = await this.collection(c, info);
      return new Set(
        await inIdBatches(ids, async (batch) => (await col.get({ ids: batch, include: [] })).ids),
      );
    });
    const gone = ids.filter((id) => !present.has(id));
    if (!gone.length) return;
    await this.unindexLexical(gone);
    this.log(
      `${gone.length} deleted memor${gone.length === 1 ? 'y was' : 'ies were'} still in the lexical index; taken out.`,
    );
  }

  /**
   * Whether a scope may be listed from the lexical index: only while it holds as many memories as Chroma
   * does. A memory whose index write failed (a lock held too long, a full disk; here or in another
   * process), or one written before the start's check caught up, is then in Chroma alone, and a listed
   * query would never see it. Checked in the background at most every {@link LISTING_CHECK_MS}; until the
   * first check answers, nothing is listed.
   */
  private listingTrusted(): boolean {
    if (Date.now() - this.listing.at >= LISTING_CHECK_MS && !this.listing.checking) {
      this.listing.checking = this.checkListing()
        .catch(() => {
          this.listing.ok = false;
          this.listing.at = Date.now();
        })
        .finally(() => {
          this.listing.checking = undefined;
        });
    }
    return this.listing.ok;
  }

  private async checkListing(): Promise<void> {
    const info = this.known();
    const lexical = this.lexical;
    if (!info || !lexical) {
      this.listing = { ok: false, at: Date.now() };
      return;
    }
    const [inChroma, inIndex] = await Promise.all([
      this.withChroma('count memories', async (c) => (await this.collection(c, info)).count()),
      lexical.run('count memories', (ix) => ix.count('memory'), -1),
    ]);
    this.listing = { ok: inChroma === inIndex && info.name === this.activeInfo?.name, at: Date.now() };
  }

  /** The memories of these projects as the lexical index lists them, when at most `max` (recall's listed step). */
  async lexicalMembers(
    projects: readonly string[],
    max: number,
  ): Promise<Map<string, Indexed> | 'too-many' | undefined> {
    if (!this.lexical) return undefined;
    return this.lexical.run(
      'list a scope',
      async (ix): Promise<Map<string, Indexed> | 'too-many'> =>
        (await ix.members('memory', projects, max)) ?? 'too-many',
      undefined,
    );
  }

  async unindexLexical(ids: string[]): Promise<void> {
    if (ids.length) await this.lexical?.run('remove documents', (ix) => ix.remove(ids), undefined);
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
    this.socket?.close();
    this.socket = undefined;
    this.client = undefined;
    this.clientKey = '';
    this.collections.clear();
  }

  /**
   * The client of a live server. The server is checked (its heartbeat, starting or adopting one as
   * needed) only before the first request and after a request could not reach it: a heartbeat before
   * every request put one more round trip on recall's path (two to four per recall), and a server that
   * died in between shows as a connection error, after which {@link withChroma} checks it again.
   */
  private async connect(): Promise<ChromaClient> {
    if (this.client && !this.recheck) return this.client;
    let ep: ChromaEndpoint;
    try {
      ep = await this.supervisor.ensure();
      this.recheck = false;
    } catch (e) {
      throw new StoreUnavailableError(errorMessage(e), { cause: e });
    }
    const key = ep.socketPath
      ? `unix:${ep.socketPath}`
      : `${ep.ssl ? 'https' : 'http'}://${ep.host}:${ep.port}`;
    if (!this.client || key !== this.clientKey) {
      this.socket?.close();
      this.socket = ep.socketPath ? socketClient(ep.socketPath) : undefined;
      this.client =
        this.socket?.client ??
        new ChromaClient({ host: ep.host, port: ep.port, ssl: ep.ssl, headers: ep.headers });
      this.clientKey = key;
      this.collections.clear();
    }
    return this.client;
  }

  /** Runs a Chroma operation, reconnecting (and restarting the embedded server) on connection errors. */
  private async withChroma<T>(what: string, op: (client: ChromaClient) => Promise<T>): Promise<T> {
    let lastErr: unknown;
    for (let attempt = 0; attempt < 8; attempt++) {
      const client = await this.connect();
      try {
        return await op(client);
      } catch (e) {
        // A full disk is a store outage, not a bad capture: the queue keeps the capture until there is room.
        if (isNoSpace(e)) throw writeFailure('the memory store', e);
        if (isSegmentNotReady(e)) {
          // A collection just created (or written by another process) whose index segment Chroma has
          // not flushed yet: the same request succeeds a moment later (chroma-core/chroma#4212).
          lastErr = e;
          this.log(`Chroma's index for ${what} is not on disk yet (attempt ${attempt + 1}); retrying`);
          await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
          continue;
        }
        if (!isConnectionError(e)) throw e;
        this.recheck = true;
        lastErr = e;
        this.log(`Chroma connection lost during ${what} (attempt ${attempt + 1}); reconnecting`);
        this.collections.clear();
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
      }
    }
    throw new StoreUnavailableError(
      `Chroma did not answer while trying to ${what}: ${errorMessage(lastErr)}`,
      { cause: lastErr },
    );
  }

  private async collection(client: ChromaClient, info: ActiveCollection): Promise<Collection> {
    const cached = this.collections.get(info.name);
    if (cached) return cached;
    const col = await client.getOrCreateCollection({
      name: info.name,
      embeddingFunction: null,
      configuration: { hnsw: { space: 'cosine' } },
      metadata: { embedding_model: info.model, embedding_dim: info.dim, created_by: 'mnemo' },
    });
    this.collections.set(info.name, col);
    return col;
  }

  /**
   * Makes sure a collection exists for this model. The first model ever used becomes active; a different
   * model later does not switch the store (that is what re-embedding does) and returns false.
   */
  async useModel(model: string, dim: number): Promise<boolean> {
    this.activeInfo ??= this.state.claim({ name: collectionNameFor(model, dim), model, dim });
    await this.withChroma('open the memory collection', (c) => this.collection(c, this.activeInfo!));
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
    await this.withChroma('store memories', async (c) => {
      const col = await this.collection(c, info);
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
      await this.indexLexical(records.map((r) => memoryLexicalDoc(r.memory)));
  }

  /**
   * Updates metadata of existing memories (not their text: a new text needs a new vector, use upsert).
   * Passing documents here would make the Chroma client try to embed them itself.
   */
  async updateMetadata(memories: Memory[]): Promise<void> {
    const info = this.known();
    if (memories.length === 0 || !info) return;
    await this.settled();

    await this.withChroma('update memories', async (c) => {
      const col = await this.collection(c, info);
      await inIdBatches(memories, (batch) =>
        col.update({ ids: batch.map((m) => m.id), metadatas: batch.map(toMetadata) }),
      );
    });
    await this.moveLexical(memories.map((m) => ({ id: m.id, project: m.project_id, facts: memoryFacts(m) })));
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
    await this.withChroma('update memories', async (c) => {
      const col = await this.collection(c, info);
      await inIdBatches(memories, (batch) =>
        col.update({ ids: batch.map((m) => m.id), metadatas: batch.map(pick) }),
      );
    });
    // recall filters and ranks by the facts in the lexical index: they change with these fields
    if (fields.some((f) => FACT_FIELDS.has(f)))
      await this.moveLexical(
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

    return this.withChroma('read memories', async (c) => {
      const col = await this.collection(c, info);
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
    return this.withChroma('list memories', async (c) => {
      const col = await this.collection(c, info);
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
    return this.withChroma('search memories', async (c) => {
      const col = await this.collection(c, info);
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
   * The k memories of these projects nearest to a vector with one of these statuses and a confidence
   * above the minimum, through the {@link planner} (store/nearest.ts): the unfiltered neighbours come as
   * ids, their projects, statuses and confidences from the lexical index (recall/facts.ts), and only what
   * the index has no facts for is read from Chroma; Chroma's fully filtered query runs only when nothing
   * else finds k. Hits found by those queries carry their memory; the others only their facts.
   */
  async nearest(
    vector: number[],
    projects: string[],
    k: number,
    only: { status: MemoryStatus[]; min_confidence: number },
  ): Promise<MemoryHit[]> {
    const rows = async (w: Where | undefined, n: number) =>
      (await this.query(vector, w, n)).map((x) => hitOf(x.memory, x.distance));
    const passes = (f: MemoryFacts) => only.status.includes(f.status) && f.confidence > only.min_confidence;
    // Asked for every question (it starts the background check), so the answer is known by the time the
    // planner has learned the scope's share.
    const trusted = this.listingTrusted();
    return this.planner.nearest<MemoryHit>({
      scope: projects.join('\u0000'),
      k,
      unfiltered: async (n) =>
        readBackInScope(
          await this.nearestIds(vector, n),
          projects,
          async (ids) => memoryKnown(await this.lexicalIndexed(ids, projects)),
          (ids) => this.get(ids),
          hitOf,
          (id, project, facts, distance) => ({ id, distance, project, facts }),
        ),
      scoped: (n) => rows(buildWhere({ project_ids: projects }), n),
      listed: async (n) => {
        if (!trusted) return undefined;
        const members = await this.lexicalMembers(projects, MAX_LISTED);
        if (members === 'too-many') return 'unlistable';
        if (!members) return undefined;
        // Those the index knows not to pass are not sent (the planner checks the rest against what it reads).
        const ids = [...members]
          .filter(([, x]) => x.facts?.kind !== 'memory' || passes(x.facts))
          .map(([id]) => id);
        if (!ids.length) return { items: [], all: true };
        let near: IdDistance[];
        try {
          near = await this.nearestIds(vector, Math.min(n, ids.length), ids);
        } catch (e) {
          // Chroma refuses the whole query when one id is gone: a memory deleted (by another process) and
          // not yet out of the index. This answer takes the planner's other paths; the index is mended.
          if (!MISSING_ID.test(errorMessage(e))) throw e;
          await this.unindexGone(ids);
          return undefined;
        }
        const wide = await readBackInScope(
          near,
          projects,
          async () => memoryKnown(members),
          (ids) => this.get(ids),
          hitOf,
          (id, project, facts, distance) => ({ id, distance, project, facts }),
        );
        return { items: await wide.read(0, wide.candidates), all: near.length < n };
      },
      exact: (n) => rows(buildWhere({ project_ids: projects, ...only }), n),
      inScope: (x) => projects.includes(x.project),
      passes: (x) => passes(x.facts),
    });
  }

  /** The ids and distances of the n nearest memories (of these ids only, when given), without their payload. */
  async nearestIds(vector: number[], n: number, among?: string[]): Promise<IdDistance[]> {
    return (await this.nearestIdsMany([vector], n, among))[0] ?? [];
  }

  /** {@link nearestIds} of several vectors, in one Chroma call. */
  async nearestIdsMany(vectors: number[][], n: number, among?: string[]): Promise<IdDistance[][]> {
    const info = this.queryable(vectors);
    if (!info) return vectors.map(() => []);
    return this.withChroma('search memories', async (c) => {
      const col = await this.collection(c, info);
      const r = await col.query({
        queryEmbeddings: vectors,
        nResults: n,
        ...(among ? { ids: among } : {}),
        include: ['distances'],
      });
      return vectors.map((_, q) =>
        (r.ids[q] ?? []).map((id, i) => ({ id, distance: r.distances[q]?.[i] ?? 2 })),
      );
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
  async queryMany(vectors: number[][], where: Where | undefined, k: number): Promise<Neighbour[][]> {
    const info = this.queryable(vectors);
    if (!info) return vectors.map(() => []);
    return this.withChroma('search memories', async (c) => {
      const col = await this.collection(c, info);
      const r = await col.query({
        queryEmbeddings: vectors,
        nResults: k,
        where,
        include: ['documents', 'metadatas', 'distances'],
      });
      return vectors.map((_, q) =>
        (r.ids[q] ?? []).map((id, i) => ({
          memory: this.row(id, r.documents[q]?.[i] ?? null, r.metadatas[q]?.[i] ?? null),
          distance: r.distances[q]?.[i] ?? 2,
        })),
      );
    });
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
    await this.withChroma('delete memories', async (c) => {
      const col = await this.collection(c, info);
      await inIdBatches(ids, async (batch) => void (await col.delete({ ids: batch })));
    });
    if (info.name === this.activeInfo?.name) {
      await this.unindexLexical(ids);
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
    await this.withChroma('erase from older collections', async (c) => {
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

  async count(): Promise<number> {
    const info = this.activeInfo;
    if (!info) return 0;
    return this.withChroma('count memories', async (c) => (await this.collection(c, info)).count());
  }

  /** Runs an operation on another collection on this store's server (the episodes of the active model). */
  async onCollection<T>(
    info: ActiveCollection,
    what: string,
    op: (col: Collection) => Promise<T>,
  ): Promise<T> {
    return this.withChroma(what, async (c) => op(await this.collection(c, info)));
  }

  /** Drops a whole collection (a finished or abandoned re-embed target). */
  async dropCollection(name: string): Promise<void> {
    await this.withChroma('drop a collection', async (c) => {
      this.collections.delete(name);
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
    await this.withChroma('create a collection', (c) => this.collection(c, info));
  }
}
