/**
 * Scoring. A system answers a question with a ranked list of items; an item cites one or more turns (a raw
 * turn cites itself; a Mnemo memory cites the `msg:<id>` refs in its `source_ref`). A hit at rank r is the
 * first item citing an evidence turn of the question. R@n: share of questions with a hit within the first n
 * items. MRR: mean of 1/r over questions (0 without a hit within k). Evidence recall@k: share of a
 * question's evidence turns cited within the first k items (differs from R@k only for multi-evidence
 * questions). Stale-first: for questions whose fact changed, share where an item citing the superseded turn
 * ranks above the first hit (or appears with no hit at all).
 */
import { CATEGORIES, type Category, type Question } from './dataset';

export interface Answer {
  question: Question;
  /** Per item, the turn ids it cites, best item first. */
  items: string[][];
}

export interface Score {
  n: number;
  'R@5': number;
  'R@k': number;
  MRR: number;
  evidence_recall: number;
}

export interface SystemScores {
  k: number;
  overall: Score;
  by_category: Record<Category, Score>;
  by_language: Record<string, Score>;
  updated_facts: Score & { stale_first: number };
}

/** 1-based rank of the first item citing an evidence turn, or 0. */
export function hitRank(a: Answer): number {
  const ev = new Set(a.question.evidence);
  const i = a.items.findIndex((cites) => cites.some((id) => ev.has(id)));
  return i + 1;
}

function score(answers: Answer[], k: number): Score {
  const n = answers.length;
  if (!n) return { n: 0, 'R@5': 0, 'R@k': 0, MRR: 0, evidence_recall: 0 };
  let r5 = 0;
  let rk = 0;
  let mrr = 0;
  let evr = 0;
  for (const a of answers) {
    const r = hitRank(a);
    if (r && r <= 5) r5++;
    if (r && r <= k) {
      rk++;
      mrr += 1 / r;
    }
    const cited = new Set(a.items.slice(0, k).flat());
    evr += a.question.evidence.filter((id) => cited.has(id)).length / a.question.evidence.length;
  }
  const r3 = (x: number): number => Math.round((x / n) * 1000) / 1000;
  return { n, 'R@5': r3(r5), 'R@k': r3(rk), MRR: r3(mrr), evidence_recall: r3(evr) };
}

export function scoreSystem(answers: Answer[], k: number, langOf: (q: Question) => string): SystemScores {
  const by_category = Object.fromEntries(
    CATEGORIES.map((c) => [
      c,
      score(
        answers.filter((a) => a.question.category === c),
        k,
      ),
    ]),
  ) as Record<Category, Score>;
  const langs = [...new Set(answers.map((a) => langOf(a.question)))].sort();
  const by_language = Object.fromEntries(
    langs.map((l) => [
      l,
      score(
        answers.filter((a) => langOf(a.question) === l),
        k,
      ),
    ]),
  );
  const updated = answers.filter((a) => a.question.supersedes?.length);
  let stale = 0;
  for (const a of updated) {
    const old = new Set(a.question.supersedes);
    const r = hitRank(a);
    const staleAt = a.items.slice(0, k).findIndex((cites) => cites.some((id) => old.has(id))) + 1;
    if (staleAt && (!r || r > k || staleAt < r)) stale++;
  }
  return {
    k,
    overall: score(answers, k),
    by_category,
    by_language,
    updated_facts: {
      ...score(updated, k),
      stale_first: updated.length ? Math.round((stale / updated.length) * 1000) / 1000 : 0,
    },
  };
}

export function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
