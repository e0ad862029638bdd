/**
 * Keeps the lexical index (derived data) in step with Chroma (the source of truth) across crashes, other
 * processes and older data folders: after the model is ready, the ids each side holds are compared per
 * kind, and what the index lacks is added, what Chroma no longer has is removed, and a memory whose project
 * or facts (facts.ts: what recall filters and ranks by) changed is brought up to date, as is a turn indexed
 * without its facts. Runs in the background;
 * a failure is logged and the next start tries again.
 */
import type { Core } from '../core';
import { errorMessage } from '../shared/errors';
import { episodeLexicalDoc } from '../store/episodeStore';
import { memoryLexicalDoc } from '../store/memoryCodec';
import { decodeFacts, encodeFacts } from '../store/lexical/facts';
import type { LexicalDoc } from '../store/lexical/lexical';

export async function syncLexical(core: Core): Promise<void> {
  const lexical = core.store.lexical.index;
  if (!lexical || core.disposed) return;
  try {
    const t0 = Date.now();
    const memories = await core.store.find(undefined);
    const memoryDocs: LexicalDoc[] = memories.map(({ memory: m }) => memoryLexicalDoc(m));
    const episodeIds = await core.episodes.allIds();
    let added = 0;
    let removed = 0;
    let moved = 0;
    let refreshed = 0;
    for (const [kind, docs, ids] of [
      ['memory', memoryDocs, memoryDocs.map((d) => d.id)],
      ['episode', undefined, episodeIds],
    ] as const) {
      if (core.disposed) return;
      const indexed = await lexical.run(
        'list its ids',
        (ix) => ix.entries(kind),
        new Map<string, { project: string; facts: string }>(),
      );
      const want = new Set(ids);
      const missing = ids.filter((id) => !indexed.has(id));
      const extra = [...indexed.keys()].filter((id) => !want.has(id));
      if (missing.length) {
        const toAdd = docs
          ? docs.filter((d) => !indexed.has(d.id))
          : (await core.episodes.get(missing)).map(episodeLexicalDoc);
        for (let i = 0; i < toAdd.length; i += 1000) await core.store.lexical.add(toAdd.slice(i, i + 1000));
        added += toAdd.length;
      }
      if (extra.length) {
        await core.store.lexical.remove(extra);
        removed += extra.length;
      }
      // A memory promoted by an older version kept its old project here; recall sorts neighbours by it. Its
      // facts (status, confidence, …) are what recall filters and ranks by: written where they differ.
      if (docs) {
        const stale = docs.filter((d) => {
          const x = indexed.get(d.id);
          return x && (x.project !== d.project || x.facts !== encodeFacts(d.facts!));
        });
        moved += stale.filter((d) => indexed.get(d.id)!.project !== d.project).length;
        refreshed += stale.length;
        for (let i = 0; i < stale.length; i += 1000) await core.store.lexical.move(stale.slice(i, i + 1000));
      } else {
        // Turns indexed before their facts were kept (or of another version of them): read and written once.
        const without = [...indexed]
          .filter(([id, x]) => want.has(id) && !decodeFacts(x.facts))
          .map(([id]) => id);
        for (let i = 0; i < without.length && !core.disposed; i += 1000) {
          const eps = await core.episodes.get(without.slice(i, i + 1000));
          await core.store.lexical.move(eps.map(episodeLexicalDoc));
          refreshed += eps.length;
        }
      }
    }
    if (added || removed || refreshed)
      core.log.info(
        `Lexical index brought up to date: ${added} added, ${removed} removed, ${moved} moved to their project, ${refreshed} with their facts rewritten (${Date.now() - t0} ms).`,
      );
  } catch (e) {
    core.log.warn(
      `The lexical index could not be checked against the store (${errorMessage(e)}); it is checked again at the next start.`,
    );
  }
}
