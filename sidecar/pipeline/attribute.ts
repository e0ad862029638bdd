/**
 * Stage 3b: who and when. After the rules, before the score: each candidate gets the speaker and the UTC
 * time of the message it came from, and the times it mentions ("yesterday", "上周") resolved against that
 * time (when.ts). In a transcript that names two or more speakers, a first-person sentence ("I'm into
 * this book called Sapiens") is attributed to its speaker in the text itself ("Caroline: I'm into …"), so
 * the memory means the same thing out of its conversation. Pure: no I/O.
 */
import type { TimeSpan } from '../model';
import type { Candidate, NormalizedMessage } from './types';
import { resolveTimes } from './when';

/** First-person words: a sentence with one of them says something about its speaker. */
const FIRST_PERSON = /\b(i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b|我|咱/i;

export function attributeCandidates(candidates: Candidate[], messages: NormalizedMessage[]): Candidate[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const speakers = new Set(messages.map((m) => m.speaker).filter(Boolean));
  const named = speakers.size >= 2;
  return candidates.map((c) => {
    const msg = c.message_ids.map((id) => byId.get(id)).find(Boolean);
    if (!msg) return c;
    // A message without a time of its own was stamped when it was read: not when it was said.
    const out: Candidate = { ...c, ...(msg.undated ? {} : { occurred_at: msg.timestamp }) };
    if (msg.speaker) out.speaker = msg.speaker;
    if (named && msg.speaker && FIRST_PERSON.test(c.text) && !c.text.startsWith(`${msg.speaker}:`))
      out.text = `${msg.speaker}: ${c.text}`;
    const times = timesOf(c.text, msg.timestamp);
    if (times.length) out.times = times;
    return out;
  });
}

/** The times a text mentions, resolved against a UTC instant. */
export function timesOf(text: string, at: string): TimeSpan[] {
  return resolveTimes(text, new Date(at)).map(({ text: t, start, end }) => ({ text: t, start, end }));
}
