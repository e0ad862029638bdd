/**
 * What an agent's word about a memory does (MCP `report`, and `mark_wrong` from an agent): `used` raises
 * its confidence a little, never past a ceiling an agent cannot pass; `wrong` lowers it and puts it in the
 * review queue (`flagged_by`) for a person to decide. An agent never decides for a person: a memory a person
 * confirmed keeps its confidence and is only flagged, and no report changes a status. Pure.
 */
import { isAgentName, type Memory } from '../model';
import type { ReportVerdict, ServedTo } from '../protocol';
import { round } from '../util/numbers';

/** How much one `used` report raises the confidence. */
export const USED_STEP = 0.02;
/** Reports never raise the confidence past this (a person's confirmation may). */
export const USED_CEILING = 0.9;
/** How much one `wrong` report lowers an unconfirmed memory's confidence. */
export const WRONG_STEP = 0.1;
/** A report counts for a recall of the last day that served the memory to the same client. */
export const REPORT_WINDOW_MS = 24 * 3600 * 1000;

export interface ReportParams {
  id: string;
  verdict: ReportVerdict;
  /** Why, in the agent's words (redacted and kept in the audit note). */
  note?: string;
  /** The client reporting: only what it was served counts. */
  served_to: ServedTo;
  /** Who, as the audit log names it: `agent:<client>@<version>`. */
  by: string;
}

export interface ReportResult {
  memory: Memory;
  /** False when every recall that served it to this client was reported on already (nothing changed). */
  counted: boolean;
}

/** True for a `by` that names an agent (`agent`, `agent:<client>`), not a person (model.ts `isAgentName`). */
export const isAgent = isAgentName;

/** Why this memory cannot be reported on, or undefined. */
export function reportRefusal(m: Memory): string | undefined {
  if (m.status === 'active' || m.status === 'confirmed' || m.status === 'pending') return undefined;
  return `${m.id} is ${m.status}: it is no longer recalled, so there is nothing to report.`;
}

/** The memory after a report by `by`. */
export function applyReport(m: Memory, verdict: ReportVerdict, by: string): Memory {
  if (verdict === 'used') {
    if (m.confidence_score >= USED_CEILING) return m;
    return { ...m, confidence_score: round(Math.min(USED_CEILING, m.confidence_score + USED_STEP)) };
  }
  // A person vouched for it: an agent's "wrong" only puts it before them.
  if (m.status === 'confirmed') return { ...m, flagged_by: by };
  return { ...m, confidence_score: round(Math.max(0, m.confidence_score - WRONG_STEP)), flagged_by: by };
}

/** The audit note of a report. */
export function reportNote(
  m: Memory,
  verdict: ReportVerdict,
  entryId: string | undefined,
  why?: string,
): string {
  const what =
    verdict === 'used'
      ? 'reported used'
      : m.status === 'confirmed'
        ? `reported wrong; ${m.confirmed_by ?? 'a person'} confirmed it, so it waits for a person's review`
        : "reported wrong; it waits for a person's review";
  return `${what}${entryId ? ` (served in ${entryId})` : ''}${why ? `: ${why}` : ''}`;
}
