/**
 * The conversational context of an evidence excerpt. An answer often shares no word with the question
 * ("上个月 28 号搬的" for "赵敏一家是哪天搬进新家的？") while the turn before it — the other speaker asking the
 * same thing ("什么时候搬的？") — shares many. So a recalled turn that asks is quoted with the reply after it,
 * and a short recalled reply with the question it answers: the next (or previous) turn of the same session,
 * said by the other speaker within {@link CONTEXT_WINDOW_MS}. The excerpt then cites both messages.
 *
 * Neighbours are found through the links each episode keeps (`previous_id` / `next_id`, written at
 * ingest) in one batched read by id; episodes kept before those links existed fall back to one read by
 * time within their session. A neighbour is never from another session or project.
 */
import type { Where } from 'chromadb';
import type { Core } from '../core';
import type { Episode } from '../model';

/** A question and its answer are said within this of each other. */
export const CONTEXT_WINDOW_MS = 30 * 60 * 1000;
/** A reply this short (in characters) is quoted with the question before it; a longer turn stands alone. */
export const SHORT_REPLY_CHARS = 80;
/** A turn ending in a question mark (full-width too), trailing spaces allowed. */
export const ASKS = /[?？]\s*$/;

/** Which neighbour a turn is quoted with: a question with the reply after it, a short reply with the turn before. */
export type ContextSide = 'next' | 'previous';

export function contextSide(e: Episode): ContextSide {
  return ASKS.test(e.text) ? 'next' : 'previous';
}

/** A turn and its neighbour, in the order they were said. */
export interface Excerpt {
  turn: Episode;
  neighbour: Episode;
  side: ContextSide;
}

/** The turns of an excerpt in the order they were said. */
export function excerptTurns(turn: Episode, context?: Excerpt): Episode[] {
  if (!context) return [turn];
  return context.side === 'next' ? [turn, context.neighbour] : [context.neighbour, turn];
}

const at = (e: Episode) => Date.parse(e.occurred_at);

/** Whether `n` may be quoted as `turn`'s neighbour on that side. */
export function fits(turn: Episode, n: Episode, side: ContextSide): boolean {
  if (n.id === turn.id || n.project_id !== turn.project_id || n.session_id !== turn.session_id) return false;
  if (n.message_id === turn.message_id || n.speaker === turn.speaker) return false;
  const gap = side === 'next' ? at(n) - at(turn) : at(turn) - at(n);
  if (!(gap >= 0 && gap <= CONTEXT_WINDOW_MS)) return false;
  // a question answered by another question is no answer; a reply is quoted with a question only
  return side === 'next' ? !ASKS.test(n.text) : ASKS.test(n.text);
}

/** Whether a turn is one that gets a neighbour at all (a long statement stands alone). */
export function wantsContext(e: Episode): boolean {
  return contextSide(e) === 'next' || e.text.length <= SHORT_REPLY_CHARS;
}

/**
 * The neighbour each of these turns is quoted with (by turn id), read in one batch: by the links kept at
 * ingest, else — for episodes kept before them — by time within the session (a tie in time is not an order:
 * such a neighbour is not found).
 */
export async function readContext(core: Core, turns: Episode[]): Promise<Map<string, Excerpt>> {
  const out = new Map<string, Excerpt>();
  const want = turns.filter(wantsContext);
  const linked = want.filter((t) => (contextSide(t) === 'next' ? t.next_id : t.previous_id) !== undefined);
  const unlinked = want.filter((t) => !linked.includes(t));
  const ids = [
    ...new Set(linked.map((t) => (contextSide(t) === 'next' ? t.next_id! : t.previous_id!)).filter(Boolean)),
  ];
  const ranges = unlinked.map((t): Where => {
    const ts = at(t);
    const [from, to] =
      contextSide(t) === 'next' ? [ts, ts + CONTEXT_WINDOW_MS] : [ts - CONTEXT_WINDOW_MS, ts];
    return {
      $and: [
        { project_id: t.project_id },
        { session_id: t.session_id },
        { occurred_ts: { $gte: from } },
        { occurred_ts: { $lte: to } },
      ],
    };
  });
  const [byId, byTime] = await Promise.all([
    core.episodes.get(ids),
    ranges.length === 0
      ? Promise.resolve<Episode[]>([])
      : core.episodes.find(ranges.length === 1 ? ranges[0]! : { $or: ranges }),
  ]);
  const known = new Map(byId.map((e) => [e.id, e]));
  for (const t of linked) {
    const side = contextSide(t);
    const n = known.get(side === 'next' ? t.next_id! : t.previous_id!);
    if (n && fits(t, n, side)) out.set(t.id, { turn: t, neighbour: n, side });
  }
  for (const t of unlinked) {
    const side = contextSide(t);
    // the nearest in time on that side, if it is strictly before or after (byTime is oldest first)
    const same = byTime.filter((n) => n.session_id === t.session_id && n.project_id === t.project_id);
    const n =
      side === 'next' ? same.find((x) => at(x) > at(t)) : [...same].reverse().find((x) => at(x) < at(t));
    if (!n) continue;
    const tie = same.filter((x) => x.id !== n.id && at(x) === at(n) && x.id !== t.id);
    if (tie.length === 0 && fits(t, n, side)) out.set(t.id, { turn: t, neighbour: n, side });
  }
  return out;
}
