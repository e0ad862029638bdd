/**
 * The rules stage for a fact an agent asks Mnemo to remember: the same rule filter every chat session
 * goes through (sidecar/pipeline/rules.ts), applied to the one text. A text the rules drop as a hedge,
 * small talk, venting, a question or too short to mean anything is refused with the rule that decided;
 * anything else goes on to redaction, dedup and the review queue (service.remember with pending).
 * Pure: no store, no model.
 */
import type { Category } from '../model';
import { applyRules } from '../pipeline/rules';

/** Drop reasons that mean "not a fact to keep", whoever says it. */
const REFUSED = ['drop:hedge', 'drop:small-talk', 'drop:venting', 'drop:question', 'drop:too-short'];

export type GateResult =
  | { keep: true; category?: Category; reason: string }
  | { keep: false; reason: string };

export function gateAgentFact(text: string, now: Date = new Date()): GateResult {
  const { candidates, dropped } = applyRules(
    [{ id: 'm0', role: 'user', content: text, timestamp: now.toISOString() }],
    'chat',
  );
  if (candidates.length > 0)
    return { keep: true, category: candidates[0]!.category, reason: candidates[0]!.reason };
  const refused = dropped.find((d) => REFUSED.some((r) => d.reason.startsWith(r)));
  if (refused && dropped.every((d) => REFUSED.some((r) => d.reason.startsWith(r))))
    return { keep: false, reason: refused.reason };
  return { keep: true, reason: dropped[0]?.reason ?? 'no rule matched' };
}
