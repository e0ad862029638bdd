/**
 * A memory's evidence: the turns of the conversation or terminal session it was learned from, read from the
 * episodes (store/episodeStore.ts) by the memory's `msg:<id>` references, each session cut to the memory's
 * own turns and a few around them. A memory promoted to Global keeps its original project's episodes.
 */
import type { Where } from 'chromadb';
import type { Core } from '../core';
import { InvalidInputError, NotFoundError } from '../shared/errors';
import type { Episode } from '../model';
import type { EvidenceParams, EvidenceResult, EvidenceSession } from '../protocol';
import { clampInt } from '../util/numbers';
import { inIdBatches } from '../store/idBatches';

/** Turns shown around the memory's own, by default. */
const CONTEXT = 12;

export async function evidence(core: Core, p: EvidenceParams): Promise<EvidenceResult> {
  if (!p || typeof p.id !== 'string' || !p.id) throw new InvalidInputError('A memory id is required.');
  const [memory] = await core.store.get([p.id]);
  if (!memory) throw new NotFoundError(`No memory with id ${p.id}.`);
  const context = clampInt(p.context ?? CONTEXT, 0, 200);
  const messageIds = [
    ...new Set(memory.source_ref.filter((r) => r.startsWith('msg:')).map((r) => r.slice(4))),
  ];
  const none = (note: string): EvidenceResult => ({ memory_id: memory.id, sessions: [], note });
  if (messageIds.length === 0)
    return none('It was not learned from a conversation or terminal session: no message is recorded.');
  if (!core.config.episodes.keep)
    return none('Sessions are not kept (mnemo.episodes.keep is off), so the source turns cannot be shown.');
  const project = memory.promoted_from ?? memory.project_id;
  const hits = await inIdBatches(messageIds, (batch) => {
    const byMessage: Where = batch.length === 1 ? { message_id: batch[0]! } : { message_id: { $in: batch } };
    return core.episodes.find({ $and: [{ project_id: project }, byMessage] });
  });
  // The same message id may occur in several sessions: prefer those whose turns link to this memory.
  const linked = hits.filter((e) => e.memory_ids.includes(memory.id));
  const sessionIds = [...new Set((linked.length ? linked : hits).map((e) => e.session_id))];
  if (sessionIds.length === 0)
    return none('Its session is no longer kept (older than mnemo.episodes.retentionDays, or deleted).');
  const sessions: EvidenceSession[] = [];
  for (const sessionId of sessionIds) {
    const turns = await core.episodes.find({ $and: [{ project_id: project }, { session_id: sessionId }] });
    sessions.push(cut(turns, memory.id, new Set(messageIds), context));
  }
  sessions.sort((a, b) =>
    (a.turns[0]?.episode.occurred_at ?? '').localeCompare(b.turns[0]?.episode.occurred_at ?? ''),
  );
  return { memory_id: memory.id, sessions };
}

/** The session's turns from `context / 2` before the first matched one to `context / 2` after the last. */
function cut(turns: Episode[], memoryId: string, messageIds: Set<string>, context: number): EvidenceSession {
  const matched = turns.map((e) => messageIds.has(e.message_id) || e.memory_ids.includes(memoryId));
  const first = matched.indexOf(true);
  const last = matched.lastIndexOf(true);
  const half = Math.ceil(context / 2);
  const from = Math.max(0, first - half);
  const to = Math.min(turns.length, last + half + 1);
  const head = turns[0];
  return {
    session_id: head?.session_id ?? '',
    source_type: head?.source_type ?? 'chat',
    source_ref: (head?.source_ref ?? []).filter((r) => !r.startsWith('msg:')),
    turns: turns.slice(from, to).map((episode, i) => ({ episode, matched: matched[from + i]! })),
    total_turns: turns.length,
  };
}
