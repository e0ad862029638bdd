/**
 * Monthly confidence decay (docs/design.md, "Decay, feedback and cleaning"): confidence x factor for each full calendar month since the
 * memory's decay anchor (its creation, then the last month decay was applied through). The anchor moves by
 * whole months, so decay is applied exactly once per month whatever happens — restarts, sleep, months
 * offline (catch-up applies factor^n). Confirmed memories and memories recalled in the last 30 days decay
 * slower. Under the floor a memory is archived, never deleted. Pure functions; the service applies a plan.
 */
import type { Memory } from '../model';
import { SETTING_DEFAULTS } from '../shared/settings';

export interface DecaySettings {
  /** `mnemo.decay.factor`: monthly multiplier. Default 0.95. */
  factor: number;
  /** `mnemo.decay.confirmedFactor`: monthly multiplier for confirmed memories and those recalled and used in the last 30 days. Default 0.98. */
  confirmedFactor: number;
  /** `mnemo.decay.floor`: under this confidence a memory is archived. Default 0.1. */
  floor: number;
}

/** The defaults of package.json (sidecar/shared/settings.ts). */
export const DEFAULT_DECAY: DecaySettings = {
  factor: SETTING_DEFAULTS['decay.factor'],
  confirmedFactor: SETTING_DEFAULTS['decay.confirmedFactor'],
  floor: SETTING_DEFAULTS['decay.floor'],
};

export interface DecayStep {
  id: string;
  text: string;
  project_id: string;
  status: Memory['status'];
  months: number;
  before: number;
  after: number;
  /** The new anchor (UTC ISO). */
  anchor: string;
  /** true when the new confidence falls under the floor: the memory is archived. */
  archive: boolean;
  slow: boolean;
}

/** Adds whole calendar months in UTC, clamping the day (Jan 31 + 1 month = Feb 28/29). */
export function addMonthsUtc(iso: string, months: number): Date {
  const d = new Date(iso);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const day = d.getUTCDate();
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      y,
      m,
      Math.min(day, lastDay),
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ),
  );
}

/** Whole months from `fromIso` to `asOf` (0 when less than one). */
export function fullMonthsBetween(fromIso: string, asOf: Date): number {
  const from = new Date(fromIso);
  if (!(from.getTime() <= asOf.getTime())) return 0;
  let n = (asOf.getUTCFullYear() - from.getUTCFullYear()) * 12 + (asOf.getUTCMonth() - from.getUTCMonth());
  while (n > 0 && addMonthsUtc(fromIso, n).getTime() > asOf.getTime()) n--;
  return Math.max(0, n);
}

/** The decay each memory would get as of a date (nothing for wrong/archived memories or under a month). */
export function planDecay(memories: Memory[], asOf: Date, s: DecaySettings = DEFAULT_DECAY): DecayStep[] {
  const steps: DecayStep[] = [];
  const recentUse = asOf.getTime() - 30 * 24 * 3600 * 1000;
  for (const m of memories) {
    if (m.status === 'wrong' || m.status === 'archived') continue;
    const anchor = m.decayed_through || m.created_at;
    if (!anchor) continue;
    const months = fullMonthsBetween(anchor, asOf);
    if (months === 0) continue;
    const slow = m.status === 'confirmed' || (!!m.last_used_at && Date.parse(m.last_used_at) >= recentUse);
    const after =
      Math.round(m.confidence_score * Math.pow(slow ? s.confirmedFactor : s.factor, months) * 10000) / 10000;
    steps.push({
      id: m.id,
      text: m.text,
      project_id: m.project_id,
      status: m.status,
      months,
      before: m.confidence_score,
      after,
      anchor: addMonthsUtc(anchor, months).toISOString(),
      archive: after < s.floor,
      slow,
    });
  }
  return steps;
}

/**
 * Decay may only look back: an as-of date in the future (beyond a day of time-zone slack) would apply
 * months that have not happened ("--as-of 2100-01-01 --apply" archived every memory). Returns the one
 * sentence that refuses it, or undefined when the date is fine.
 */
export function futureAsOfError(asOf: Date, now: Date): string | undefined {
  if (asOf.getTime() <= now.getTime() + 24 * 3600 * 1000) return undefined;
  return `Decay cannot run as of ${asOf.toISOString().slice(0, 10)}, which is in the future; use today or an earlier date.`;
}
