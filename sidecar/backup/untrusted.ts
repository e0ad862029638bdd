/**
 * A backup is untrusted input (docs/backup.md, "A backup is untrusted"): whoever holds the password can
 * craft one. Every record is checked again before import — lengths, dates (none in the future), counters
 * clamped to their ranges, every text re-redacted through the same redact stage as ingest — and the place
 * it goes is decided by the importing user, not by the record: ids are recomputed from content where the
 * backup's id does not match its text, and records for `global` or for projects the user is not working in
 * need the user's consent.
 */
import {
  episodeId,
  isTier,
  lowerTier,
  memoryId,
  tierOf,
  tierOfRole,
  type Episode,
  type Memory,
} from '../model';
import { holdOf } from '../pipeline/firewall';
import { oneLine } from '../shared/text';
import { MAX_EPISODE_CHARS } from '../pipeline/normalize';
import { redactText } from '../pipeline/redact';
import type { BackupRecord, EpisodeRecord } from './format';

/** The longest memory text an import accepts: what `remember` keeps. */
export const MAX_MEMORY_CHARS = 2000;
/** A record dated later than this past the import's clock is refused (clock skew between machines is allowed). */
export const FUTURE_TOLERANCE_MS = 10 * 60 * 1000;
/** The largest use_count / times_seen an import keeps. */
export const MAX_COUNTER = 1_000_000;

/** Why a record is not imported, in words a person reads in the preview. */
export type RefusalReason =
  | 'marked wrong in this store'
  | 'text longer than 2000 characters'
  | 'episode text longer than 4000 characters'
  | 'dated in the future'
  | 'for global, needs consent'
  | 'for another project, needs consent'
  | 'transcripts are off (mnemo.episodes.keep)';

/** Fields that are never rewritten by redaction: ids, enums, times and the model name. */
const UNREDACTED = new Set([
  'id',
  'tier',
  'project_id',
  'category',
  'source_type',
  'status',
  'embedding_model',
  'session_id',
  'message_id',
  'role',
]);

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const counter = (x: number, lo: number): number => clamp(Math.floor(x), lo, MAX_COUNTER);

function future(value: unknown, now: number): boolean {
  return typeof value === 'string' && Date.parse(value) > now + FUTURE_TOLERANCE_MS;
}

async function redact(s: string): Promise<string> {
  return s ? (await redactText(s)).text : s;
}

/** A redacted copy of every free-text string of a record (its own fields, source refs, extra fields). */
async function redactStrings<T extends object>(o: T): Promise<T> {
  const out = { ...o } as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) {
    if (UNREDACTED.has(k) || k.endsWith('_at')) continue;
    if (typeof v === 'string') out[k] = await redact(v);
    else if (k === 'source_ref' && Array.isArray(v))
      out[k] = await Promise.all(v.map((x) => (typeof x === 'string' ? redact(x) : x)));
  }
  return out as T;
}

/** Where a record of `project` may go without consent: a project the user works in, never global. */
export function needsConsent(project: string, own: ReadonlySet<string>): RefusalReason | undefined {
  if (project === 'global') return 'for global, needs consent';
  return own.has(project) ? undefined : 'for another project, needs consent';
}

/**
 * A memory of a backup checked, clamped and redacted, with the id its text has in `project` (the place it
 * is imported to) and whether redaction changed the text (then the backup's id named a secret and is
 * dropped); or why it is refused.
 */
export async function checkMemory(
  r: BackupRecord,
  project: string,
  now: number,
  keepConfirmations = false,
): Promise<{ record: BackupRecord; contentId: string; redacted: boolean } | { refused: RefusalReason }> {
  const m = r.memory as unknown as Record<string, unknown>;
  if (Object.entries(m).some(([k, v]) => k.endsWith('_at') && future(v, now)))
    return { refused: 'dated in the future' };
  if (r.memory.text.length > MAX_MEMORY_CHARS) return { refused: 'text longer than 2000 characters' };
  const redacted: Memory = await redactStrings({
    ...r.memory,
    project_id: project,
    text: r.memory.text.trim(),
    confidence_score: clamp(r.memory.confidence_score, 0, 1),
    score: clamp(r.memory.score, 0, 10),
    times_seen: counter(r.memory.times_seen, 1),
    use_count: counter(r.memory.use_count, 0),
  });
  const memory = keepConfirmations ? vouchedAsClaimed(redacted) : unvouched(redacted);
  return {
    record: { ...r, memory },
    contentId: memoryId(project, memory.text),
    redacted: memory.text !== r.memory.text.trim(),
  };
}

/**
 * A record as the backup claims it (the user made it): its confirmation, tier and notice kept; below the
 * person tier the firewall still looks at it.
 */
function vouchedAsClaimed(m: Memory): Memory {
  const { held: _held, ...rest } = m;
  const tier = isTier(m.tier) ? m.tier : tierOf(m);
  return hold({ ...rest, tier });
}

/**
 * A record of an untrusted backup: nothing in it was vouched for here. A confirmation comes back pending,
 * naming the confirmer the file claims; the tier is at most `outside`; whom to notify is dropped; and
 * instruction-shaped text is held (pipeline/firewall.ts).
 */
function unvouched(m: Memory): Memory {
  const { notify_user: _notify, confirmed_by, held: _held, ...rest } = m;
  const tier = lowerTier(isTier(m.tier) ? m.tier : tierOf(m), 'outside');
  const claimed = m.status === 'confirmed';
  return hold({
    ...rest,
    tier,
    ...(claimed
      ? {
          status: 'pending' as const,
          reason: `${m.reason}; restored from a backup that says ${confirmed_by ? oneLine(confirmed_by) : 'someone'} confirmed it: confirm it again`,
        }
      : {}),
  });
}

/** Holds a recallable or pending record whose text the firewall flags: pending, with the reason. */
function hold(m: Memory): Memory {
  if (m.status !== 'active' && m.status !== 'pending') return m;
  const held = holdOf(m.text, m.tier ?? 'outside');
  return held ? { ...m, status: 'pending', held } : m;
}

/** Who a backup says confirmed its memories (for the preview's question). */
export function claimedConfirmations(records: BackupRecord[]): { count: number; by: string[] } {
  const confirmed = records.filter((r) => r.memory.status === 'confirmed');
  return {
    count: confirmed.length,
    by: [...new Set(confirmed.map((r) => oneLine(r.memory.confirmed_by ?? 'someone')))].slice(0, 5),
  };
}

/** An episode of a backup checked and redacted, under the id its content has in `project`; or why it is refused. */
export async function checkEpisode(
  r: EpisodeRecord,
  project: string,
  now: number,
  keepConfirmations = false,
): Promise<{ record: EpisodeRecord } | { refused: RefusalReason }> {
  if (future(r.episode.occurred_at, now) || future(r.episode.created_at, now))
    return { refused: 'dated in the future' };
  if (r.episode.text.length > MAX_EPISODE_CHARS)
    return { refused: 'episode text longer than 4000 characters' };
  const e: Episode = await redactStrings({ ...r.episode, project_id: project });
  e.id = episodeId(project, e.session_id, e.message_id, e.text);
  // Its tier and hold are this store's judgement: the file's claims are kept only from the user's own backup.
  const claimed = isTier(e.tier) ? e.tier : tierOfRole(e.role);
  e.tier = keepConfirmations ? claimed : lowerTier(claimed, 'outside');
  const held = holdOf(e.text, e.tier);
  if (held) e.held = held;
  else delete e.held;
  return { record: { ...r, episode: e } };
}
