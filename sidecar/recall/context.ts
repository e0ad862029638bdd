/**
 * The conversational context of an evidence excerpt. An answer often shares no word with the question
 * while the turns around it do: "赵敏: 终于搬进新家了！" / "assistant: 恭喜！住得还习惯吗？" / "赵敏: 上个月 28
 * 号搬的" — for "赵敏一家是哪天搬进新家的？" the first turn matches and the last one answers. So a recalled turn
 * is quoted with the turns of its exchange (same session, each said by another speaker than the turn before
 * it, within {@link CONTEXT_WINDOW_MS} of it):
 *   - a turn that asks, with the reply after it;
 *   - a turn the other speaker follows with a question, with that question and its reply;
 *   - a short reply, with the question before it; an assistant's short reply, with the turn it reacts to.
 * The excerpt then cites every quoted message.
 *
 * The best items are also quoted with how their exchange went on ({@link readThreads}): an exchange that
 * opens with "the login crash is back" or "二号线的问题找到了！" gives the cause and the fix a few turns later,
 * after a greeting or a "说说" in between, and a question with two parts ("what caused it and how was it
 * fixed") needs both.
 *
 * Neighbours are found through the links each episode keeps (`previous_id` / `next_id`, written at
 * ingest) in batched reads by id (a second one only for the replies to follow-up questions); episodes kept
 * before those links existed fall back to one read by time within their session, for the best
 * {@link UNLINKED_TURNS} of them. A neighbour is never from another session or project.
 */
import type { Where } from 'chromadb';
import type { Core } from '../core';
import type { Episode } from '../model';
import { ASKS } from '../store/lexical/facts';

/** Each quoted turn is said within this of the one before it. */
export const CONTEXT_WINDOW_MS = 30 * 60 * 1000;
/** A reply this short (in characters) is quoted with the question before it; a longer turn stands alone. */
export const SHORT_REPLY_CHARS = 80;
/**
 * Episodes kept before the turn links are matched by time, which costs a filtered read over the session
 * (about 10 ms a turn on a loaded 2-core machine, against about 1 ms a turn by link): only this many of
 * them, the best first, get a neighbour.
 */
export const UNLINKED_TURNS = 5;
export { ASKS };

/** A recalled turn and every turn quoted with it, in the order said. */
export interface Excerpt {
  turn: Episode;
  turns: Episode[];
}

/** The turns quoted with the recalled one (not the turn itself). */
export const neighboursOf = (x: Excerpt) => x.turns.filter((t) => t !== x.turn);

const at = (e: Episode) => Date.parse(e.occurred_at);

/** Whether `b` is said right after `a` in the same exchange: same session, another speaker, soon after. */
export function follows(a: Episode, b: Episode): boolean {
  if (b.id === a.id || b.project_id !== a.project_id || b.session_id !== a.session_id) return false;
  if (b.message_id === a.message_id || b.speaker === a.speaker) return false;
  const gap = at(b) - at(a);
  return gap >= 0 && gap <= CONTEXT_WINDOW_MS;
}

/** How to step through a session around a turn. */
export interface Steps {
  next(e: Episode): Episode | undefined;
  previous(e: Episode): Episode | undefined;
}

/** The turns a recalled turn is quoted with, in the order said, or undefined when it stands alone. */
export function excerptOf(t: Episode, steps: Steps): Episode[] | undefined {
  const next = steps.next(t);
  const ok = (a: Episode, b: Episode | undefined): b is Episode => !!b && follows(a, b);
  if (ASKS.test(t.text)) return ok(t, next) && !ASKS.test(next.text) ? [t, next] : undefined;
  if (ok(t, next) && ASKS.test(next.text)) {
    const reply = steps.next(next);
    if (ok(next, reply) && !ASKS.test(reply.text)) return [t, next, reply];
  }
  if (t.text.length > SHORT_REPLY_CHARS) return undefined;
  const before = steps.previous(t);
  if (!before || !follows(before, t)) return undefined;
  // An assistant's short reply means little without the turn it reacts to ("比预算还低一些，不错。" after the
  // price); a person's short turn in a group chat usually says something of its own.
  return ASKS.test(before.text) || t.role === 'assistant' ? [before, t] : undefined;
}

const linkedTo = (ids: (string | undefined)[]) => ids.filter((x): x is string => !!x);

/**
 * The excerpt each of these turns (best first) is quoted as, by turn id: by the links kept at ingest (one
 * batched read, a second for the replies to follow-up questions), else — for episodes kept before the links
 * — by one read by time within their sessions (a tie in time is not an order: no excerpt then).
 */
export async function readContext(
  core: Core,
  turns: Episode[],
  /** Turns already read (recall reads the links of its best turns with them): not read again. */
  prefetched: Episode[] = [],
): Promise<Map<string, Excerpt>> {
  const out = new Map<string, Excerpt>();
  const have = new Map(prefetched.map((e) => [e.id, e]));
  const linked = turns.filter((t) => t.next_id !== undefined && t.previous_id !== undefined);
  const unlinked = turns.filter((t) => !linked.includes(t)).slice(0, UNLINKED_TURNS);
  const ranges = unlinked.map(
    (t): Where => ({
      $and: [
        { project_id: t.project_id },
        { session_id: t.session_id },
        { occurred_ts: { $gte: at(t) - CONTEXT_WINDOW_MS } },
        { occurred_ts: { $lte: at(t) + 2 * CONTEXT_WINDOW_MS } },
      ],
    }),
  );
  const first = linkedTo(
    linked.flatMap((t) => [
      t.next_id,
      !ASKS.test(t.text) && t.text.length <= SHORT_REPLY_CHARS ? t.previous_id : '',
    ]),
  );
  const [byId, byTime] = await Promise.all([
    core.episodes.get([...new Set(first)].filter((id) => !have.has(id))),
    ranges.length === 0
      ? Promise.resolve<Episode[]>([])
      : core.episodes.find(ranges.length === 1 ? ranges[0]! : { $or: ranges }),
  ]);
  const known = new Map([...have.values(), ...linked, ...byId].map((e) => [e.id, e]));
  // the replies to follow-up questions: the turn after a question that follows a recalled statement
  const second = linkedTo(
    linked.map((t) => known.get(t.next_id!)).map((n) => (n && ASKS.test(n.text) ? n.next_id : undefined)),
  ).filter((id) => !known.has(id));
  for (const e of await core.episodes.get([...new Set(second)])) known.set(e.id, e);
  const byLink: Steps = {
    next: (e) => (e.next_id ? known.get(e.next_id) : undefined),
    previous: (e) => (e.previous_id ? known.get(e.previous_id) : undefined),
  };
  for (const t of linked) {
    const x = excerptOf(t, byLink);
    if (x) out.set(t.id, { turn: t, turns: x });
  }
  for (const t of unlinked) {
    // the session around the turn, oldest first; a tie in time leaves the order unknown
    const session = byTime.filter((e) => e.project_id === t.project_id && e.session_id === t.session_id);
    if (!session.some((e) => e.id === t.id)) session.push(t);
    session.sort((a, b) => at(a) - at(b));
    const tie = session.some((e, i) => i > 0 && at(e) === at(session[i - 1]!));
    if (tie) continue;
    const byTimeSteps: Steps = {
      next: (e) => session[session.findIndex((x) => x.id === e.id) + 1],
      previous: (e) => {
        const i = session.findIndex((x) => x.id === e.id);
        return i > 0 ? session[i - 1] : undefined;
      },
    };
    const x = excerptOf(t, byTimeSteps);
    if (x) out.set(t.id, { turn: t, turns: x });
  }
  return out;
}

/** How many of the best recalled items (in fused order) are quoted with how their exchange went on. */
export const THREAD_ITEMS = 2;
/** How many turns of the exchange are quoted after the recalled ones. */
export const THREAD_TURNS = 3;
/** Each turn of the thread is said within this of the one before it: a longer pause ends the exchange. */
export const THREAD_GAP_MS = 10 * 60 * 1000;
/** A turn that opens with one of these changes the subject: the exchange ended before it. */
export const CHANGES_SUBJECT =
  /^\s*(?:btw\b|by the way\b|unrelated\b|off[- ]topic\b|personal news\b|oh and\b|anyway\b|顺便|另外|说起来|说个题外话|题外话|对了|话说)/i;

/**
 * The turns said after each of these (the last turn of a recalled excerpt, or the turn a recalled memory
 * came from), by its id: up to {@link THREAD_TURNS} of the same session, each within {@link THREAD_GAP_MS}
 * of the one before, in the order said, until a turn that changes the subject ("btw", "顺便说一下").
 * Followed by the links kept at ingest, one batched read by id per step for the turns not read yet (a read
 * by id costs about a millisecond; a filtered read grows with the store); episodes kept before the links
 * get no thread.
 */
export async function readThreads(
  core: Core,
  after: Episode[],
  /** Turns already read (recall reads the links of its best turns): not read again. */
  prefetched: Episode[] = [],
): Promise<Map<string, Episode[]>> {
  const read = new Map(prefetched.map((e) => [e.id, e]));
  const threads = new Map(after.map((t) => [t.id, [] as Episode[]]));
  let ends = after.map((t) => ({ from: t, last: t }));
  for (let step = 0; step < THREAD_TURNS && ends.length > 0; step++) {
    const ids = [...new Set(ends.map((x) => x.last.next_id).filter((id): id is string => !!id))];
    for (const e of await core.episodes.get(ids.filter((id) => !read.has(id)))) read.set(e.id, e);
    ends = ends.flatMap(({ from, last }) => {
      const n = last.next_id ? read.get(last.next_id) : undefined;
      if (!n || n.session_id !== from.session_id || n.project_id !== from.project_id) return [];
      const gap = at(n) - at(last);
      if (gap < 0 || gap > THREAD_GAP_MS || CHANGES_SUBJECT.test(n.text)) return [];
      threads.get(from.id)!.push(n);
      return [{ from, last: n }];
    });
  }
  return new Map([...threads].filter(([, t]) => t.length > 0));
}
