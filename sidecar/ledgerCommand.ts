/**
 * `mnemo ledger [ID] [--limit N] [--client C] [--project P] [--json]`: what agents and people were shown,
 * newest first, read straight from the ledger files (lifecycle/ledger.ts) — no Chroma, no model. And the
 * lines `mnemo show ID` adds about when and to whom a memory was served.
 */
import { join } from 'node:path';
import { RecallLedger } from './lifecycle/ledger';
import type { LedgerEntry, LedgerListResult } from './protocol';

export interface LedgerCommandOptions {
  dataDir: string;
  limit: number;
  client?: string;
  /** Only the recalls that served this memory. */
  memoryId?: string;
  projectIds?: string[];
  json: boolean;
}

/** `claude-code 1.0.3` — the client as the ledger names it. */
export function clientLabel(e: LedgerEntry): string {
  return `${e.served_to.name}${e.served_to.version ? ` ${e.served_to.version}` : ''}`;
}

function when(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** One entry as text: a header line, then one line per item. */
export function entryLines(e: LedgerEntry, printable: (s: string) => string): string[] {
  const what = e.query ? `"${printable(e.query)}"` : '(by id)';
  const erased = e.erased ? `, ${e.erased} since deleted` : '';
  return [
    `${when(e.at)}  ${printable(clientLabel(e))} (${e.served_to.surface} ${printable(e.served_to.tool ?? 'recall')})  ${what}  ${e.items.length} item${e.items.length === 1 ? '' : 's'}${erased}, ${e.tokens} tokens  ${e.id}`,
    ...e.items.map(
      (i) =>
        `    ${i.id}  ${i.kind.padEnd(8)} ${i.score.toFixed(2)}${i.verdict ? `  reported ${i.verdict}` : ''}`,
    ),
  ];
}

/** What `mnemo show` adds: how often the memory was served, and the latest servings. */
export function servedSummary(r: LedgerListResult): { total?: number; more: boolean; recent: object[] } {
  return {
    ...(r.total !== undefined ? { total: r.total } : {}),
    more: r.more,
    recent: r.entries.map((e) => ({
      at: e.at,
      client: clientLabel(e),
      surface: e.served_to.surface,
      tool: e.served_to.tool ?? 'recall',
      query: e.query,
      entry: e.id,
    })),
  };
}

export function ledgerCommand(
  o: LedgerCommandOptions,
  out: (line: string) => void,
  printable: (s: string) => string,
): void {
  const ledger = new RecallLedger(join(o.dataDir, 'ledger'));
  const r = ledger.read({
    limit: o.limit,
    client: o.client,
    memory_id: o.memoryId,
    project_ids: o.projectIds,
  });
  if (o.json) {
    out(JSON.stringify(r, null, 2));
    return;
  }
  if (r.entries.length === 0) {
    out('Nothing was served yet (or nothing matches).');
    return;
  }
  for (const e of r.entries) for (const line of entryLines(e, printable)) out(line);
  out(
    `${r.entries.length} recall${r.entries.length === 1 ? '' : 's'} shown${r.total !== undefined ? ` of ${r.total}` : ''}, newest first${r.more ? `; more with --limit` : ''}.`,
  );
}
