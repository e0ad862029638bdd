/**
 * Episodes: every turn of every ingested session, verbatim (redacted), in a collection of their own per
 * embedding model (`mnemo_ep_<model>_<dim>`, beside the memories' `mnemo_<model>_<dim>`). Memories are
 * the curated layer; episodes are the archive they point to and the evidence recall quotes. The vector
 * of an episode is the embedding of "speaker: text", so "I" is somebody.
 */
import type { Collection, Metadata, Where } from 'chromadb';
import { DimensionMismatchError } from '../shared/errors';
import { errorLine, parseResultMessage } from '../shared/terminal';
import { cutText } from '../shared/text';
import { isSourceType, isTier, type Episode } from '../model';
import { episodeFacts, type EpisodeFacts } from './lexical/facts';
import type { LexicalDoc } from './lexical/lexical';
import type { MemoryStore } from './memoryStore';
import type { ActiveCollection } from './storeState';
import { IDS_PER_REQUEST, inIdBatches } from './idBatches';
import { parseTimes } from './memoryCodec';
import { NearestPlanner, readBackInScope, type IdDistance, type Known } from './nearest';

export interface EpisodeNeighbour {
  episode: Episode;
  /** Cosine distance 0..2. */
  distance: number;
}

/**
 * An episode as recall's vector channel finds it: its id, distance, project and what it is ranked by
 * (store/lexical/facts.ts); the episode itself only when it was read from Chroma anyway.
 */
export interface EpisodeHit {
  id: string;
  distance: number;
  project: string;
  facts: EpisodeFacts;
  episode?: Episode;
}

const hitOf = (episode: Episode, distance: number): EpisodeHit => ({
  id: episode.id,
  distance,
  project: episode.project_id,
  facts: episodeFacts(episode),
  episode,
});

/** The episodes' collection for the memories' active collection. */
export function episodeCollectionFor(active: ActiveCollection): ActiveCollection {
  return { ...active, name: active.name.replace(/^mnemo_/, 'mnemo_ep_') };
}

/** What is searched for an episode (the lexical index), and embedded unless it is a command's output. */
export function episodeSearchText(e: Pick<Episode, 'speaker' | 'text'>): string {
  return e.speaker ? `${e.speaker}: ${e.text}` : e.text;
}

/**
 * How much of a tool turn is embedded: a command's result (`exit 1 · …`) or an agent's list of tool calls
 * (`Edit src/app.ts; Read README.md`). Its vector says what the turn is about; every word of it stays in the
 * lexical index, which is what finds an error message or a file name again. The model's cost grows with
 * the length of what it reads, and tool turns are half of an agent's: embedded from their first 200
 * characters they still took most of a capture's backfill (docs/benchmarks.md, "Capture backfill").
 */
export const TOOL_VECTOR_CHARS = 100;

/** The first line of a command's output that says anything. */
function firstLine(output: string): string {
  return (
    output
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  );
}

/**
 * The text an episode's vector is made of: "speaker: text" for what somebody said; for a tool turn, at
 * most {@link TOOL_VECTOR_CHARS} characters: a command's exit code and one line of its output — the first
 * error line ({@link errorLine}) of a failure, the first line of a success (`exit 0 · > jest --ci`: what
 * ran, not the test timings after it, which took over half of a backfill's embedding and never repeat) —
 * and the start of any other tool turn.
 */
export function episodeVectorText(e: Pick<Episode, 'speaker' | 'text' | 'role'>): string {
  if (e.role !== 'tool') return episodeSearchText(e);
  const result = parseResultMessage(e.text);
  const text =
    result?.exitCode !== undefined && result.output
      ? episodeSearchText({
          speaker: e.speaker,
          text: `exit ${result.exitCode} · ${(result.exitCode ? errorLine : firstLine)(result.output)}`,
        })
      : episodeSearchText(e);
  return cutText(text, TOOL_VECTOR_CHARS);
}

export function episodeLexicalDoc(e: Episode): LexicalDoc {
  return {
    id: e.id,
    kind: 'episode',
    project: e.project_id,
    text: episodeSearchText(e),
    facts: episodeFacts(e),
  };
}

/**
 * How a turn is kept in Chroma. The keys a `where` names (project, session, message id, time: recall's
 * context, evidence, retention, erasure) are keys of their own; everything else of the turn is one JSON
 * key, `turn`; its text is the key `text`, not a Chroma document. Chroma indexes every document for
 * full-text search (a trigram index that Mnemo never asks: its own lexical index finds turns) and keeps
 * one row per metadata key: on a store of 20,000 turns that was half of Chroma's CPU time for each write of
 * turns (docs/benchmarks.md, "What a turn costs Chroma"). Stores written before keep their shape until a
 * turn is written again; {@link fromMetadata} reads either.
 */
export function episodeMetadata(e: Episode): Metadata {
  return { ...episodeLinks(e), text: e.text };
}

/**
 * Everything of a turn's metadata but its text: what rewriting its links writes (Chroma's update merges
 * keys, so the text stays as it is).
 */
function episodeLinks(e: Episode): Metadata {
  const turn: Record<string, string | number> = {
    role: e.role,
    speaker: e.speaker,
    occurred_at: e.occurred_at,
    source_type: e.source_type,
    source_ref: JSON.stringify(e.source_ref),
    times: JSON.stringify(e.times),
    memory_ids: JSON.stringify(e.memory_ids),
    created_at: e.created_at,
    ...(e.previous_id !== undefined ? { previous_id: e.previous_id } : {}),
    ...(e.next_id !== undefined ? { next_id: e.next_id } : {}),
    ...(e.tier ? { tier: e.tier } : {}),
    ...(e.held ? { held: e.held } : {}),
    ...(e.chatter ? { chatter: e.chatter } : {}),
    ...(e.occurrence ? { occurrence: e.occurrence } : {}),
  };
  return {
    project_id: e.project_id,
    session_id: e.session_id,
    message_id: e.message_id,
    occurred_ts: Date.parse(e.occurred_at),
    turn: JSON.stringify(turn),
  };
}

function strings(json: unknown): string[] {
  if (typeof json !== 'string') return [];
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

/** The fields packed in `turn` (an object of the keys a turn had before), or undefined: the older shape. */
function packed(json: unknown): Record<string, unknown> | undefined {
  if (typeof json !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A turn from its Chroma row, of either shape: {@link episodeMetadata}'s or the one before (a key per field, the text as the document). */
function fromMetadata(id: string, document: string | null, meta: Metadata | null): Episode {
  const row = (meta ?? {}) as Record<string, unknown>;
  const fields = packed(row.turn);
  // Once a turn has `turn`, keys of the older shape left on its row by an update are stale: not read.
  const md = fields
    ? { project_id: row.project_id, session_id: row.session_id, message_id: row.message_id, ...fields }
    : row;
  const str = (k: string): string => (typeof md[k] === 'string' ? (md[k] as string) : '');
  return {
    id,
    text: typeof row.text === 'string' ? row.text : (document ?? ''),
    project_id: str('project_id'),
    session_id: str('session_id'),
    message_id: str('message_id'),
    role: str('role'),
    speaker: str('speaker'),
    occurred_at: str('occurred_at'),
    source_type: isSourceType(md.source_type) ? md.source_type : 'chat',
    source_ref: strings(md.source_ref),
    times: parseTimes(str('times')),
    memory_ids: strings(md.memory_ids),
    created_at: str('created_at'),
    ...(typeof md.previous_id === 'string' ? { previous_id: md.previous_id } : {}),
    ...(typeof md.next_id === 'string' ? { next_id: md.next_id } : {}),
    ...(isTier(md.tier) ? { tier: md.tier } : {}),
    ...(str('held') ? { held: str('held') } : {}),
    ...(str('chatter') ? { chatter: str('chatter') } : {}),
    ...(typeof md.occurrence === 'number' && md.occurrence > 0 ? { occurrence: md.occurrence } : {}),
  };
}

export class EpisodeStore {
  private readonly planner = new NearestPlanner();

  constructor(private readonly store: MemoryStore) {}

  /** The collection episodes go to (none before the store knows its model). */
  private info(): ActiveCollection | undefined {
    return this.store.active && episodeCollectionFor(this.store.active);
  }

  private on<T>(
    what: string,
    op: (col: Collection, info: ActiveCollection) => Promise<T>,
    empty: T,
  ): Promise<T> {
    const info = this.info();
    if (!info) return Promise.resolve(empty);
    return this.store.onCollection(info, what, (col) => op(col, info));
  }

  /** Inserts or replaces episodes with their vectors (of {@link episodeVectorText}); also into the lexical index. */
  async upsert(records: { episode: Episode; vector: number[] }[]): Promise<void> {
    if (records.length === 0) return;
    await this.on(
      'store episodes',
      async (col, info) => {
        for (const r of records)
          if (r.vector.length !== info.dim)
            throw new DimensionMismatchError(info.dim, r.vector.length, info.name);
        for (let i = 0; i < records.length; i += 500) {
          const batch = records.slice(i, i + 500);
          await col.upsert({
            ids: batch.map((r) => r.episode.id),
            embeddings: batch.map((r) => r.vector),
            metadatas: batch.map((r) => episodeMetadata(r.episode)),
          });
        }
      },
      undefined,
    );
    await this.store.lexical.add(records.map((r) => episodeLexicalDoc(r.episode)));
  }

  /**
   * Rewrites the metadata of stored episodes (their links to memories), not their text, and the facts the
   * lexical index keeps of them.
   */
  async updateMetadata(episodes: Episode[]): Promise<void> {
    if (episodes.length === 0) return;
    await this.on(
      'update episodes',
      async (col) => {
        for (let i = 0; i < episodes.length; i += 500) {
          const batch = episodes.slice(i, i + 500);
          await col.update({ ids: batch.map((e) => e.id), metadatas: batch.map(episodeLinks) });
        }
      },
      undefined,
    );
    await this.store.lexical.move(
      episodes.map((e) => ({ id: e.id, project: e.project_id, facts: episodeFacts(e) })),
    );
  }

  async get(ids: string[]): Promise<Episode[]> {
    if (ids.length === 0) return [];
    return this.on(
      'read episodes',
      (col) =>
        inIdBatches(ids, async (batch) => {
          const r = await col.get({ ids: batch, include: ['documents', 'metadatas'] });
          return r.ids.map((id, i) => fromMetadata(id, r.documents[i] ?? null, r.metadatas[i] ?? null));
        }),
      [],
    );
  }

  /** The episodes of a project (and optionally a session), oldest first. */
  async find(where: Where): Promise<Episode[]> {
    return (await this.rows(where, false)).map((r) => r.episode);
  }

  /** Episodes matching `where` (every episode when undefined), oldest first, with their vectors when asked (backup). */
  async rows(
    where: Where | undefined,
    withVectors: boolean,
  ): Promise<{ episode: Episode; vector?: number[] }[]> {
    return this.on(
      'list episodes',
      async (col) => {
        const out: { episode: Episode; vector?: number[] }[] = [];
        for (let offset = 0; ; offset += 2000) {
          const r = await col.get({
            ...(where ? { where } : {}),
            limit: 2000,
            offset,
            include: withVectors ? ['documents', 'metadatas', 'embeddings'] : ['documents', 'metadatas'],
          });
          r.ids.forEach((id, i) => {
            const episode = fromMetadata(id, r.documents[i] ?? null, r.metadatas[i] ?? null);
            const v = withVectors ? r.embeddings?.[i] : undefined;
            out.push(v ? { episode, vector: Array.from(v) } : { episode });
          });
          if (r.ids.length < 2000) break;
        }
        return out.sort((a, b) => a.episode.occurred_at.localeCompare(b.episode.occurred_at));
      },
      [],
    );
  }

  /**
   * The nearest episodes of these projects to a vector. The project is filtered here or in Chroma
   * depending on its share of the store (store/nearest.ts): a `where` costs in proportion to the rows it
   * matches, so a project that is most of 100k turns is cheaper to filter after an unfiltered query.
   */
  async query(vector: number[], projects: string[], k: number): Promise<EpisodeHit[]> {
    if (projects.length === 0) return [];
    const where: Where =
      projects.length === 1 ? { project_id: projects[0] } : { project_id: { $in: projects } };
    const nearest = (n: number, w: Where | undefined) =>
      this.on(
        'search episodes',
        async (col, info) => {
          if (vector.length !== info.dim)
            throw new DimensionMismatchError(info.dim, vector.length, info.name);
          const r = await col.query({
            queryEmbeddings: [vector],
            nResults: n,
            where: w,
            include: ['documents', 'metadatas', 'distances'],
          });
          return (r.ids[0] ?? []).map((id, i) =>
            hitOf(
              fromMetadata(id, r.documents[0]?.[i] ?? null, r.metadatas[0]?.[i] ?? null),
              r.distances[0]?.[i] ?? 2,
            ),
          );
        },
        [] as EpisodeHit[],
      );
    const nearestIds = (n: number) =>
      this.on(
        'search episodes',
        async (col, info) => {
          if (vector.length !== info.dim)
            throw new DimensionMismatchError(info.dim, vector.length, info.name);
          const r = await col.query({ queryEmbeddings: [vector], nResults: n, include: ['distances'] });
          return (r.ids[0] ?? []).map((id, i) => ({ id, distance: r.distances[0]?.[i] ?? 2 }));
        },
        [] as IdDistance[],
      );
    return this.planner.nearest<EpisodeHit>({
      scope: projects.join('\u0000'),
      k,
      unfiltered: async (n) =>
        readBackInScope(
          await nearestIds(n),
          projects,
          async (ids) => {
            const out = new Map<string, Known<EpisodeFacts>>();
            for (const [id, x] of await this.store.lexical.indexed(ids, projects))
              out.set(
                id,
                x.facts?.kind === 'episode' ? { project: x.project, facts: x.facts } : { project: x.project },
              );
            return out;
          },
          (ids) => this.get(ids),
          hitOf,
          (id, project, facts, distance) => ({ id, distance, project, facts }),
        ),
      scoped: (n) => nearest(n, where),
      exact: (n) => nearest(n, where),
      inScope: (x) => projects.includes(x.project),
      passes: () => true,
    });
  }

  /** Ids of every episode (paged), for reconciling the lexical index. */
  async allIds(): Promise<string[]> {
    return this.on(
      'list episode ids',
      async (col) => {
        const out: string[] = [];
        for (let offset = 0; ; offset += 5000) {
          const r = await col.get({ limit: 5000, offset, include: [] });
          out.push(...r.ids);
          if (r.ids.length < 5000) break;
        }
        return out;
      },
      [],
    );
  }

  async count(): Promise<number> {
    return this.on('count episodes', (col) => col.count(), 0);
  }

  /** Deletes the episodes said before a UTC instant (mnemo.episodes.retentionDays); returns how many. */
  async deleteOlderThan(before: string): Promise<number> {
    const ids = (await this.find({ occurred_ts: { $lt: Date.parse(before) } })).map((e) => e.id);
    await this.delete(ids);
    return ids.length;
  }

  /**
   * Deletes episodes by id (retention, a rolled-back backup import), in batches: noted for erasure from
   * Chroma's log first, then out of the collection, the lexical index and any older model's collection.
   */
  async delete(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += IDS_PER_REQUEST) {
      const batch = ids.slice(i, i + IDS_PER_REQUEST);
      this.store.noteErased(batch);
      await this.on('delete episodes', (col) => col.delete({ ids: batch }), undefined);
      await this.store.lexical.remove(batch);
      await this.store.eraseFromKept(batch);
    }
  }

  /** Deletes every episode of a project (per-project wipe); returns how many. */
  async deleteProject(project: string): Promise<number> {
    const ids = (await this.find({ project_id: project })).map((e) => e.id);
    await this.delete(ids);
    return ids.length;
  }
}
