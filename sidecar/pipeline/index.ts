/**
 * The pure part of the pipeline, in data-flow order: normalize -> redact -> rules (or, for a terminal
 * session, the terminal stage) -> score.
 * (extract/dedup/store live elsewhere: they need a model or the database.)
 */
import { normalizeSession } from './normalize';
import { mergeFindings, redactText } from './redact';
import { applyRules } from './rules';
import { isTerminalSession, terminalCandidates } from './terminal';
import { scoreCandidates, type Scorer } from './score';
import type { AnalyzeResult, SessionInput } from './types';

export { InvalidSessionError, normalizeSession } from './normalize';
export { redactText, redactTextSync } from './redact';
export { applyRules, splitSentences } from './rules';
export { confidenceFromScore, defaultScorer, scoreCandidates, DEFAULT_REVIEW_THRESHOLD, type Scorer } from './score';

export interface AnalyzeOptions {
  /** Candidates scoring under this (0..10) go to the review queue. Default 4. */
  reviewScoreThreshold?: number;
  /** Scorer to use. Default the rule-feature scorer. */
  scorer?: Scorer;
  /** Clock for messages without a timestamp. Default `() => new Date()`. */
  clock?: () => Date;
}

/**
 * Analyze one session: normalize, redact every message, apply the rule filter, score and gate.
 * Session-level `source_ref`s are added to every candidate. Returns `skipped` (and nothing else)
 * when the session is too short to learn from.
 *
 * @throws InvalidSessionError when the session is malformed.
 */
export async function analyzeSession(input: SessionInput, opts: AnalyzeOptions = {}): Promise<AnalyzeResult> {
  const { messages, skipped } = normalizeSession(input, opts.clock);
  if (skipped) return { candidates: [], dropped: [], skipped };

  const findings = [];
  const redacted = [];
  for (const m of messages) {
    const r = await redactText(m.content);
    findings.push(r.findings);
    redacted.push(r.findings.length ? { ...m, content: r.text } : m);
  }

  // Commands and their output are not sentences to parse: a terminal session goes through its own stage.
  const terminal = (input.source_type === 'terminal' || input.source_type === 'troubleshooting_log') && isTerminalSession(redacted);
  const { candidates, dropped } = terminal ? terminalCandidates(redacted, input.source_type) : applyRules(redacted, input.source_type);
  const sessionRefs = (input.source_ref ?? []).filter((r) => typeof r === 'string' && r.length > 0);
  const withRefs = sessionRefs.length
    ? candidates.map((c) => ({ ...c, source_ref: [...new Set([...c.source_ref, ...sessionRefs])] }))
    : candidates;
  const scoreOpts: { scorer?: Scorer; reviewThreshold?: number } = {};
  if (opts.scorer) scoreOpts.scorer = opts.scorer;
  if (opts.reviewScoreThreshold !== undefined) scoreOpts.reviewThreshold = opts.reviewScoreThreshold;
  const result: AnalyzeResult = { candidates: scoreCandidates(withRefs, scoreOpts), dropped };
  const redactions = mergeFindings(findings);
  if (redactions.length) result.redactions = redactions;
  return result;
}
