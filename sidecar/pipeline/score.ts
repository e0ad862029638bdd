/**
 * Stage: score. A 0-10 knowledge-value score per candidate (docs/design.md, Score and the review gate; here from
 * rule features rather than a fine-tuned model; the {@link Scorer} interface lets a model-based
 * scorer replace it), the initial confidence derived from it, and the review gate (docs/design.md's
 * "第三级：人工确认门禁"): low scores, explicit requests and unverified hard claims wait for a person.
 * Pure: no I/O.
 */
import type { Candidate, CandidateFeatures } from './types';

/** Result of scoring one candidate: the score and the contributions that explain it. */
export interface ScoreExplanation {
  /** 0..10, one decimal. */
  score: number;
  /** Human-readable contributions, e.g. `actionable +2`. */
  why: string[];
}

/** Something that rates how worth remembering a candidate is. */
export interface Scorer {
  readonly name: string;
  score(candidate: Candidate): ScoreExplanation;
}

export interface ScoreOptions {
  /** The scorer. Default {@link defaultScorer}. */
  scorer?: Scorer;
  /** Candidates scoring under this go to the review queue. Default 4 (0..10). */
  reviewThreshold?: number;
}

/** Default review threshold (0..10). */
export const DEFAULT_REVIEW_THRESHOLD = 4;

/**
 * Initial confidence from a score: `min(0.95, 0.5 + score / 20)`.
 * 0 -> 0.50, 2 -> 0.60 (the recall floor, docs/design.md), 4 -> 0.70, 6 -> 0.80, 8 -> 0.90, >= 9 -> 0.95.
 * Nothing starts below 0.5 (the "clean low confidence" line) or at 1.0 (kept for confirmed memories).
 */
export function confidenceFromScore(score: number): number {
  const s = Math.max(0, Math.min(10, score));
  return Math.round(Math.min(0.95, 0.5 + s / 20) * 1000) / 1000;
}

/** Base value of the rule that kept a candidate. */
const RULE_BASE: Readonly<Record<string, number>> = {
  'explicit-request': 3,
  decision: 3,
  correction: 3,
  rule: 3,
  workflow: 3,
  preference: 3,
  identity: 3,
  style: 3,
  'cognitive-verb': 2.5,
  'confirmed-fact': 3,
  'operational-verb': 2,
  event: 2,
  'source-ref': 2,
  'tech-number': 1.5,
};

/** Features recomputed cheaply when a candidate did not come through the rule stage. */
function featuresOf(c: Candidate): CandidateFeatures {
  if (c.features) return c.features;
  return {
    role: 'user',
    rule: /^rule:([\w-]+)/.exec(c.reason)?.[1] ?? 'unknown',
    explicit_request: false,
    has_number: /\d/.test(c.text),
    tech_terms: 0,
    vent: false,
    unverified_claim: false,
    length: [...c.text].length,
  };
}

/**
 * The default scorer: additive and explainable.
 *
 * | feature | points |
 * | --- | --- |
 * | rule that kept it | 1.5 (tech-number) .. 3 (decision, rule, preference, identity, explicit) |
 * | actionable (technical term + number) | +2 |
 * | a number without a technical term | +0.5 |
 * | cognitive verb (确认, verified) / operational verb (设置, restart) | +1.5 / +1 |
 * | referenced document or link | +1.5 |
 * | technical terms | +0.5 each, at most +1.5 |
 * | specific (weighted length >= 12, a Chinese character counting 2) / very short (< 8) / long (> 200 chars) | +1 / -1 / -0.5 |
 * | user message / assistant or tool | +1 / 0 |
 * | explicit request | +1 |
 * | venting words / unverified hard claim / contains a redaction placeholder | -2 / -1.5 / -1 |
 */
export const defaultScorer: Scorer = {
  name: 'rules-v1',
  score(c: Candidate): ScoreExplanation {
    const f = featuresOf(c);
    const why: string[] = [];
    let s = 0;
    const add = (points: number, label: string): void => {
      if (points === 0) return;
      s += points;
      why.push(`${label} ${points > 0 ? '+' : ''}${points}`);
    };
    add(RULE_BASE[f.rule] ?? 1.5, `rule ${f.rule}`);
    if (c.is_actionable && f.has_number) add(2, 'actionable');
    else if (c.is_actionable) add(1, 'actionable');
    else if (f.has_number) add(0.5, 'number');
    if (f.verb_kind === 'cognitive') add(1.5, `cognitive verb ${f.verb ?? ''}`.trim());
    else if (f.verb_kind === 'operational') add(1, `operational verb ${f.verb ?? ''}`.trim());
    if (c.source_ref.some((r) => !r.startsWith('msg:'))) add(1.5, 'source ref');
    add(Math.min(1.5, f.tech_terms * 0.5), 'technical terms');
    const w = f.weighted_length ?? f.length;
    if (w < 8) add(-1, 'very short');
    else if (f.length > 200) add(-0.5, 'long');
    else if (w >= 12) add(1, 'specific length');
    if (f.role === 'user') add(1, 'user said it');
    if (f.explicit_request) add(1, 'explicit request');
    if (f.vent) add(-2, 'venting');
    if (f.unverified_claim) add(-1.5, 'unverified claim');
    if (c.text.includes('[REDACTED:')) add(-1, 'contains redacted data');
    const score = Math.round(Math.max(0, Math.min(10, s)) * 10) / 10;
    return { score, why };
  },
};

/**
 * Score candidates, set their initial confidence ({@link confidenceFromScore}) and apply the review
 * gate: `pending = true` with a `pending_reason` when the score is under the threshold, the user
 * asked explicitly, or the claim is an unverified hard constraint. Returns new objects.
 */
export function scoreCandidates(candidates: readonly Candidate[], opts: ScoreOptions = {}): Candidate[] {
  const scorer = opts.scorer ?? defaultScorer;
  const threshold = opts.reviewThreshold ?? DEFAULT_REVIEW_THRESHOLD;
  return candidates.map((c) => {
    const { score } = scorer.score(c);
    const f = c.features;
    const reasons: string[] = [];
    if (f?.explicit_request || (c.pending && c.pending_reason?.startsWith('explicit'))) {
      reasons.push(
        c.pending_reason ?? `explicit request${f?.request_phrase ? ` (${f.request_phrase})` : ''}`,
      );
    }
    if (score < threshold) reasons.push(`score ${score} < ${threshold}`);
    if (f?.unverified_claim) reasons.push('unverified hard claim: no 确认/验证/source given');
    const out: Candidate = {
      ...c,
      score,
      confidence: confidenceFromScore(score),
      pending: reasons.length > 0,
    };
    if (reasons.length) out.pending_reason = reasons.join('; ');
    else delete out.pending_reason;
    return out;
  });
}
