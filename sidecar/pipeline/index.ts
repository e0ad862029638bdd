/**
 * The pure part of the pipeline, in data-flow order: normalize -> redact -> rules (or, for a terminal
 * session, the terminal stage) -> attribute (who and when) -> score -> the agent gate (sessions captured
 * from an agent's transcript) -> firewall (tiers, and what is held for review). (extract/dedup/store live
 * elsewhere: they need a model or the database; ingest runs the firewall again over what the extract stage
 * adds.)
 */
import { gateAgentCandidates, sessionTierCap } from './agentGate';
import { attributeCandidates } from './attribute';
import { MAX_MESSAGE_CHARS, normalizeSession, splitPieces } from './normalize';
import { mergeFindings, redactText, redactTextSync } from './redact';
import { guardCandidates, inspectMessages } from './firewall';
import { applyRulesInSlices, chatterOf } from './rules';
import { Slices } from '../util/slices';
import { isTerminalSession, terminalCandidates } from './terminal';
import { scoreCandidates, type Scorer } from './score';
import type { AnalyzeResult, SessionInput } from './types';

export { InvalidSessionError, normalizeSession } from './normalize';
export { redactText, redactTextSync } from './redact';
export { applyRules, splitSentences } from './rules';
export { guardCandidates, holdOf, inspectMessages, inspectText } from './firewall';
export { sessionTierCap } from './agentGate';
export {
  confidenceFromScore,
  defaultScorer,
  scoreCandidates,
  DEFAULT_REVIEW_THRESHOLD,
  type Scorer,
} from './score';

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
  // Each long step gives the event loop (JSON-RPC: status, stats, recall) a turn when it ran its slice.
  const slices = new Slices();
  const { all, skipped, empty } = normalizeSession(input, opts.clock);

  // Every message is redacted once, whole; the rules read it in pieces (nothing of a long transcript
  // is skipped), and the redacted messages are the session's episodes (the verbatim evidence).
  const findings = [];
  const redacted = [];
  for (const m of all) {
    await slices.turn();
    const r = await redactText(m.content);
    findings.push(r.findings);
    const speaker = m.speaker && redactTextSync(m.speaker).text;
    redacted.push(
      r.findings.length || speaker !== m.speaker
        ? { ...m, content: r.text, ...(speaker ? { speaker } : {}) }
        : m,
    );
  }
  // Instruction-shaped text from below the person tier is held (firewall.ts): inspected whole, once.
  // A captured agent's shell commands are the agent's, not the person's (agentGate.ts).
  const cap = sessionTierCap(input);
  const guard = inspectMessages(redacted, cap);
  // A session too short to learn from is still kept as evidence; a held turn of it still goes to review.
  if (skipped)
    return {
      candidates: guardCandidates([], guard, redacted, input.source_type, cap),
      dropped: [],
      skipped,
      episodes: redacted,
      empty,
      guard,
      chatter: new Map(),
    };
  await slices.turn();
  const pieces = redacted.flatMap((m) =>
    splitPieces(m.content, MAX_MESSAGE_CHARS).map((content) => ({ ...m, content })),
  );
  await slices.turn();

  // Commands and their output are not sentences to parse: a terminal session goes through its own stage,
  // which reads each command and its output whole (an output longer than a piece is still one result).
  const terminal =
    (input.source_type === 'terminal' || input.source_type === 'troubleshooting_log') &&
    isTerminalSession(redacted);
  const ruled = terminal
    ? terminalCandidates(redacted, input.source_type)
    : await applyRulesInSlices(pieces, input.source_type);
  const { dropped } = ruled;
  const candidates = attributeCandidates(ruled.candidates, redacted);
  const sessionRefs = (input.source_ref ?? []).filter((r) => typeof r === 'string' && r.length > 0);
  const withRefs = sessionRefs.length
    ? candidates.map((c) => ({ ...c, source_ref: [...new Set([...c.source_ref, ...sessionRefs])] }))
    : candidates;
  const scoreOpts: { scorer?: Scorer; reviewThreshold?: number } = {};
  if (opts.scorer) scoreOpts.scorer = opts.scorer;
  if (opts.reviewScoreThreshold !== undefined) scoreOpts.reviewThreshold = opts.reviewScoreThreshold;
  const gated = gateAgentCandidates(scoreCandidates(withRefs, scoreOpts), input);
  const result: AnalyzeResult = {
    candidates: guardCandidates(gated.candidates, guard, redacted, input.source_type, cap),
    dropped: [...dropped, ...gated.dropped],
    episodes: redacted,
    empty,
    guard,
    chatter: terminal ? new Map() : chatterOf(ruled),
  };
  const redactions = mergeFindings(findings);
  if (redactions.length) result.redactions = redactions;
  return result;
}
