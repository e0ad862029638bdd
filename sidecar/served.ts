/**
 * What was served: every recall, and every read an agent makes through MCP, is written to the ledger
 * (lifecycle/ledger.ts) before its answer goes out — when, to whom, the query redacted like everything
 * Mnemo stores, the items and the tokens — and listed for "What My Agents Saw", a memory's details and
 * `mnemo ledger`. A ledger that cannot be written (a full disk) never fails the recall: the error is logged.
 */
import type { Core } from './core';
import { errorMessage, InvalidInputError } from './shared/errors';
import { newEntryId } from './lifecycle/ledger';
import { redactText, redactTextSync } from './pipeline/redact';
import type {
  LedgerEntry,
  LedgerItem,
  LedgerListParams,
  LedgerListResult,
  LedgerSurface,
  RecallParams,
  RecallResult,
  ServedTo,
} from './protocol';
import { cutText } from './shared/text';
import { clampInt, round } from './util/numbers';

/** The longest query kept (after redaction). */
const MAX_QUERY_CHARS = 2000;
const SURFACES: readonly LedgerSurface[] = ['mcp', 'lm-tool', 'chat', 'preview', 'cli', 'other'];
/** Store reads for item texts go in batches of this many ids. */
const TEXT_BATCH = 500;

/** One serving, as the caller knows it. */
export interface ServedRecord {
  served_to?: ServedTo;
  query: string;
  project_ids: string[];
  items: LedgerItem[];
  tokens: number;
}

/** A short, printable, redacted label from a client (its name comes from the client itself). */
function label(v: unknown, max: number): string {
  const text = typeof v === 'string' ? v.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim() : '';
  return cutText(redactTextSync(text).text, max);
}

/** `served_to` as given over the wire, checked: anything unknown becomes `other` / `unknown`. */
export function servedTo(v: unknown): ServedTo {
  const o = (v && typeof v === 'object' ? v : {}) as Partial<Record<keyof ServedTo, unknown>>;
  const surface = SURFACES.includes(o.surface as LedgerSurface) ? (o.surface as LedgerSurface) : 'other';
  const version = label(o.version, 40);
  return {
    surface,
    name: label(o.name, 100) || 'unknown',
    ...(version ? { version } : {}),
    tool: label(o.tool, 60) || 'recall',
  };
}

/** Writes one serving to the ledger; never throws (a failure is logged as an error). */
export async function recordServed(core: Core, s: ServedRecord): Promise<void> {
  const to = servedTo(s.served_to);
  try {
    const query = cutText(
      (await redactText(typeof s.query === 'string' ? s.query : '')).text,
      MAX_QUERY_CHARS,
    );
    const entry: LedgerEntry = {
      id: newEntryId(),
      at: core.now(),
      served_to: to,
      project_ids: (Array.isArray(s.project_ids) ? s.project_ids : [])
        .filter((p): p is string => typeof p === 'string')
        .slice(0, 50),
      query,
      items: s.items,
      tokens: Math.max(0, Math.round(s.tokens) || 0),
    };
    core.ledger.append(entry);
  } catch (e) {
    core.log.error(`A recall served to ${to.name} could not be written to the ledger: ${errorMessage(e)}`);
  }
}

/** Records a recall (service.ts: after the recall room, before the answer goes out) and returns it. */
export async function recordRecall(core: Core, p: RecallParams, r: RecallResult): Promise<RecallResult> {
  await recordServed(core, {
    served_to: p.served_to,
    query: p.query,
    project_ids: p.project_ids,
    items: r.items.map((i) => ({
      id: i.memory.id,
      kind: i.kind,
      score: round(i.score),
      project_id: i.memory.project_id,
    })),
    tokens: r.tokens,
  });
  return r;
}

function checkList(p: LedgerListParams): void {
  const text = (v: unknown) => v === undefined || (typeof v === 'string' && v.length <= 512);
  if (!text(p.client) || !text(p.memory_id) || !text(p.entry_id))
    throw new InvalidInputError('The ledger filter takes a client, memory_id and entry_id as text.');
  if (p.project_ids !== undefined && !(Array.isArray(p.project_ids) && p.project_ids.every(text)))
    throw new InvalidInputError("The ledger filter's project_ids must be a list of project ids.");
}

/** Fills each item's text and status as they are now (absent: no longer stored). */
async function withTexts(core: Core, entries: LedgerEntry[]): Promise<void> {
  const ids = (kind: LedgerItem['kind']) => [
    ...new Set(entries.flatMap((e) => e.items.filter((i) => i.kind === kind).map((i) => i.id))),
  ];
  const texts = new Map<string, { text: string; status?: LedgerItem['status'] }>();
  const memories = ids('memory');
  const turns = ids('evidence');
  for (let i = 0; i < memories.length; i += TEXT_BATCH)
    for (const m of await core.store.get(memories.slice(i, i + TEXT_BATCH)))
      texts.set(m.id, { text: m.text, status: m.status });
  for (let i = 0; i < turns.length; i += TEXT_BATCH)
    for (const e of await core.episodes.get(turns.slice(i, i + TEXT_BATCH)))
      texts.set(e.id, { text: `${e.speaker}: ${e.text}` });
  for (const e of entries) e.items = e.items.map((i) => ({ ...i, ...(texts.get(i.id) ?? {}) }));
}

/** The ledger, newest first, filtered; with `with_text` each item's text as it is now. */
export async function listLedger(core: Core, p: LedgerListParams = {}): Promise<LedgerListResult> {
  checkList(p);
  const r = core.ledger.read({
    limit: clampInt(p.limit ?? 100, 1, 1000),
    client: p.client || undefined,
    memory_id: p.memory_id || undefined,
    entry_id: p.entry_id || undefined,
    project_ids: p.project_ids,
  });
  if (p.with_text && r.entries.length) {
    try {
      await withTexts(core, r.entries);
    } catch (e) {
      core.log.warn(`The texts of served memories could not be read: ${errorMessage(e)}`);
    }
  }
  return r;
}
