/**
 * The episodes of an ingested session: every turn, verbatim and redacted (the pipeline's redact stage
 * already ran on them), with who said it, when, the times it mentions and the memories derived from it.
 * Stored after the memories so each turn can link to what was learned from it; re-ingesting the same
 * session replaces its episodes (stable ids) and keeps their earlier links.
 */
import { createHash } from 'node:crypto';
import type { Core } from '../core';
import { episodeId, normalizeText, tierOfRole, type Episode } from '../model';
import { timesOf } from '../pipeline/attribute';
import { MAX_EPISODE_CHARS, splitPieces } from '../pipeline/normalize';
import type { AnalyzeResult, NormalizedMessage, SessionInput } from '../pipeline/types';
import { episodeVectorText } from '../store/episodeStore';
import { Slices } from '../util/slices';

/**
 * A session without an id gets one from its content, so the same transcript maps to the same episodes: the
 * time of a message without one of its own (the time it was read) is no part of it.
 */
export function sessionIdOf(session: SessionInput, messages: NormalizedMessage[]): string {
  if (typeof session.session_id === 'string' && session.session_id.trim()) return session.session_id.trim();
  const h = createHash('sha256');
  for (const m of messages) h.update(`${m.id}\u0000${m.undated ? '' : m.timestamp}\u0000${m.content}\u0001`);
  return `s_${h.digest('hex').slice(0, 16)}`;
}

/** What the pipeline said of each turn: its tier and hold (firewall stage), its chatter class (rules stage). */
export type TurnMarks = Pick<AnalyzeResult, 'guard' | 'chatter'>;

/** A session's episodes, read and embedded before its memories are stored (see {@link prepareEpisodes}). */
export interface PreparedEpisodes {
  episodes: Episode[];
  vectors: number[][];
  /** Episodes of turns without a time of their own: ingested again, they keep the time they were first read. */
  undated: Set<string>;
}

/**
 * The session's turns as episodes, with their vectors (of {@link episodeVectorText}, through `embed`: the
 * session's embedding pass, which reuses the vector of a text it already embedded). None of it depends on
 * the store, so it runs while the memories are deduplicated and stored (and, in a backlog, while the
 * session before it is committed); {@link keepEpisodes} then links and writes them. System messages are
 * instructions to a model, not evidence: left out. A turn longer than {@link MAX_EPISODE_CHARS} is kept
 * whole as consecutive parts (each with the turn's message id), never cut. Undefined when no turn is left.
 */
export async function prepareEpisodes(
  core: Core,
  session: SessionInput,
  messages: NormalizedMessage[],
  embed: (texts: string[]) => Promise<number[][]>,
  marks: TurnMarks = { guard: { tiers: new Map(), held: new Map() }, chatter: new Map() },
): Promise<PreparedEpisodes | undefined> {
  const turns = messages
    .filter((m) => m.role !== 'system' && m.content.trim())
    .flatMap((m) =>
      m.content.length > MAX_EPISODE_CHARS
        ? splitPieces(m.content, MAX_EPISODE_CHARS).map((content) => ({ ...m, content }))
        : [m],
    );
  if (turns.length === 0) return undefined;
  const sessionId = sessionIdOf(session, messages);
  const now = core.now();
  const sessionRefs = (session.source_ref ?? []).filter((r) => typeof r === 'string' && r.length > 0);
  // The nth turn (or part) with the same message id and text gets n in its id: a log that repeats one
  // line splits into identical parts, which must stay distinct (and stable when ingested again).
  const seen = new Map<string, number>();
  const episodes: Episode[] = turns.map((m) => {
    const key = `${m.id}\u0000${normalizeText(m.content)}`;
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return {
      id: episodeId(session.project_id, sessionId, m.id, m.content, occurrence),
      ...(occurrence > 0 ? { occurrence } : {}),
      project_id: session.project_id,
      session_id: sessionId,
      message_id: m.id,
      role: m.role,
      speaker: m.speaker ?? m.role,
      text: m.content,
      occurred_at: m.timestamp,
      source_type: session.source_type,
      source_ref: [`msg:${m.id}`, ...sessionRefs],
      times: [],
      memory_ids: [],
      created_at: now,
      tier: marks.guard.tiers.get(m.id) ?? tierOfRole(m.role),
      ...(marks.guard.held.has(m.id) ? { held: marks.guard.held.get(m.id) } : {}),
      ...(marks.chatter.has(m.id) ? { chatter: marks.chatter.get(m.id) } : {}),
    };
  });
  // The times each turn mentions (a date parser over every part of a 1 MB message), in slices: the
  // event loop (JSON-RPC) gets a turn between them.
  const slices = new Slices();
  for (const [i, e] of episodes.entries()) {
    await slices.turn();
    e.times = timesOf(e.text, turns[i]!.timestamp);
  }
  // Each turn knows its neighbours in the session, so recall can quote a question with its answer
  // (recall/context.ts). Two messages of one capture often share a timestamp: order by time cannot tell them apart.
  episodes.forEach((e, i) => {
    e.previous_id = episodes[i - 1]?.id ?? '';
    e.next_id = episodes[i + 1]?.id ?? '';
  });
  const vectors = await embed(episodes.map(episodeVectorText));
  const undated = new Set(episodes.filter((_, i) => turns[i]!.undated).map((e) => e.id));
  return { episodes, vectors, undated };
}

/** One session's prepared turns and what its memories' commit linked them to (message id → memory ids). */
export interface TurnsToKeep {
  prepared: PreparedEpisodes | undefined;
  links: Map<string, string[]>;
}

/**
 * Stores the prepared episodes of one or more sessions (a backlog's, in the queue's order) in one write;
 * `links` maps a message id to the memories derived from it. Keeps what an earlier ingest of the same turns
 * linked (and when it was first kept), whether it is stored or earlier in the same batch. Returns how many
 * turns of each session were kept.
 */
export async function keepEpisodes(core: Core, batch: TurnsToKeep[]): Promise<number[]> {
  const all = batch.flatMap((b) => b.prepared?.episodes ?? []);
  if (all.length === 0) return batch.map(() => 0);
  // What an earlier ingest of the same turns stored, read now (not when the turns were prepared: a session
  // committed meanwhile may have stored them).
  const stored = new Map((await core.episodes.get([...new Set(all.map((e) => e.id))])).map((e) => [e.id, e]));
  const writes = new Map<string, { episode: Episode; vector: number[] }>();
  for (const { prepared, links } of batch) {
    if (!prepared) continue;
    const { episodes, vectors, undated } = prepared;
    episodes.forEach((e, i) => {
      const old = writes.get(e.id)?.episode ?? stored.get(e.id);
      const linked = links.get(e.message_id) ?? [];
      e.memory_ids = old ? [...new Set([...old.memory_ids, ...linked])] : linked;
      if (old) e.created_at = old.created_at || e.created_at;
      if (old && undated.has(e.id)) {
        e.occurred_at = old.occurred_at;
        e.times = old.times;
      }
      writes.set(e.id, { episode: e, vector: vectors[i]! });
    });
  }
  await core.episodes.upsert([...writes.values()]);
  return batch.map((b) => b.prepared?.episodes.length ?? 0);
}
