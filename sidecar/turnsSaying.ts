/**
 * The turns that say a memory: the turns it was taken from (its `msg:` refs, or linked to it), and any other
 * turn of its project with a sentence that repeats it — the same conversation captured again, a rewritten
 * transcript, another agent's copy. Marking a memory wrong links every one of them to it, so recall never
 * quotes them (recall/recall.ts); deleting a memory deletes them (what a person deleted does not stay in the
 * evidence). A sentence repeats the memory when it embeds within the dedup distance of it, the same test that
 * blocks re-learning it (ingest/dedup.ts).
 */
import type { Core } from './core';
import { cosineDistance } from './embed/vectors';
import { normalizeText, type Episode, type Memory } from './model';
import { splitSentences } from './pipeline/rules';
import type { LexicalHit } from './store/lexical/lexical';

/** Turns near the memory read from each channel (lexical and vector) before the sentence test. */
const CANDIDATES = 40;
/** A sentence shares at least this share of the memory's words before it is embedded and compared. */
const WORD_OVERLAP = 0.5;

/** The memory's text without the "speaker: " a named transcript's first-person sentence starts with. */
function spoken(m: Memory): string {
  return m.speaker ? m.text.replace(/^[^:：\n]{1,60}[:：]\s*/, '') : m.text;
}

const wordsOf = (text: string): Set<string> =>
  new Set(normalizeText(text).match(/[\p{L}\p{N}]+|[\u3400-\u9fff]/gu) ?? []);

function overlap(memoryWords: Set<string>, sentence: string): number {
  if (memoryWords.size === 0) return 0;
  const s = wordsOf(sentence);
  let n = 0;
  for (const w of memoryWords) if (s.has(w)) n++;
  return n / memoryWords.size;
}

/**
 * The turns of the memory's project (its original one, for a promoted memory) that say it. `thorough`
 * (default): also the turns near it by words and by meaning, tested sentence by sentence; otherwise only
 * the turns of its own messages (one read, for deleting many memories at once).
 */
export async function turnsSaying(core: Core, memory: Memory, thorough = true): Promise<Episode[]> {
  if (!core.config.episodes.keep) return [];
  const project = memory.promoted_from ?? memory.project_id;
  const refs = new Set(memory.source_ref.filter((r) => r.startsWith('msg:')).map((r) => r.slice(4)));
  const text = spoken(memory);
  // Without the model (it may be loading or unavailable), the links and the words still find the turns.
  const vector = thorough
    ? await core
        .requireModel()
        .then(() => core.embedding.embed([text]))
        .then(([v]) => v)
        .catch(() => undefined)
    : undefined;
  const lexical = thorough
    ? await core.store.lexical.index?.run(
        'search',
        (ix) => ix.search(text, { projects: [project], kinds: ['episode'], limit: CANDIDATES }),
        [] as LexicalHit[],
      )
    : [];
  const [byRef, near] = await Promise.all([
    refs.size
      ? core.episodes.find({
          $and: [
            { project_id: project },
            refs.size === 1 ? { message_id: [...refs][0]! } : { message_id: { $in: [...refs] } },
          ],
        })
      : Promise.resolve<Episode[]>([]),
    vector ? core.episodes.query(vector, [project], CANDIDATES) : Promise.resolve([]),
  ]);
  // A message id names a turn only within its session (ids like "m3" repeat across sessions): a turn with
  // one of the memory's ids is tested like any other, unless it links to the memory.
  const known = new Map<string, Episode>(
    [...byRef, ...near.flatMap((h) => (h.episode ? [h.episode] : []))].map((e) => [e.id, e]),
  );
  const unread = [...new Set((lexical ?? []).map((h) => h.id).concat(near.map((h) => h.id)))].filter(
    (id) => !known.has(id),
  );
  const read = [...known.values(), ...(await core.episodes.get(unread))];
  const found = new Map<string, Episode>();
  const memoryWords = wordsOf(text);
  const whole = normalizeText(text);
  const maybe: { episode: Episode; sentence: string }[] = [];
  for (const e of read) {
    if (e.project_id !== project) continue;
    if (e.memory_ids.includes(memory.id) || normalizeText(e.text).includes(whole)) {
      found.set(e.id, e);
      continue;
    }
    for (const sentence of splitSentences(e.text))
      if (overlap(memoryWords, sentence) >= WORD_OVERLAP) maybe.push({ episode: e, sentence });
  }
  if (maybe.length && vector) {
    const vs = await core.embedding.embed(maybe.map((x) => x.sentence));
    maybe.forEach((x, i) => {
      if (cosineDistance(vs[i]!, vector) < core.config.pipeline.dedupDistance)
        found.set(x.episode.id, x.episode);
    });
  }
  return [...found.values()];
}
