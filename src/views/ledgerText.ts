/**
 * How the ledger of what agents were shown reads in the editor — the "What My Agents Saw" rows, the page
 * of one served recall, the "Served" section of a memory's details — as plain strings. No `vscode`
 * import; unit-tested in test/unit/ledgerText.test.ts.
 */
import type { LedgerEntry, LedgerItem, LedgerListResult, LedgerSurface } from '../../sidecar/protocol';
import { formatLocalWithUtc, relativeAge } from '../time';
import { markdownCell, markdownText, shortText, STATUS_LABEL } from '../shared/memoryText';

/** Through what a recall was served, in words. */
export const SURFACE_LABEL: Record<LedgerSurface, string> = {
  mcp: 'MCP',
  'lm-tool': 'language model tool',
  chat: 'chat participant',
  preview: 'Preview Injection',
  cli: 'command line',
  other: 'another client',
};

/** The codicon of each surface. */
export const SURFACE_ICON: Record<LedgerSurface, string> = {
  mcp: 'plug',
  'lm-tool': 'tools',
  chat: 'comment-discussion',
  preview: 'eye',
  cli: 'terminal',
  other: 'question',
};

/** `claude-code 1.0.3` */
export function clientName(e: LedgerEntry): string {
  return `${e.served_to.name}${e.served_to.version ? ` ${e.served_to.version}` : ''}`;
}

/** What it called, when not a plain recall: `search`, `get`, `/forget`. */
function toolOf(e: LedgerEntry): string | undefined {
  const tool = e.served_to.tool ?? 'recall';
  return tool === 'recall' ? undefined : tool;
}

/** The row's label: the query, or what was read by id. */
export function entryLabel(e: LedgerEntry): string {
  if (e.query) return shortText(e.query, 80);
  const first = e.items[0];
  return `${toolOf(e) ?? 'read'}${first ? ` ${shortText(first.text ?? first.id, 60)}` : ''}`;
}

function itemsWord(n: number): string {
  return `${n} item${n === 1 ? '' : 's'}`;
}

/** `claude-code 1.0.3 · 5 minutes ago · 3 items` (the tool in brackets when not a recall). */
export function entryDescription(e: LedgerEntry, now = Date.now()): string {
  const tool = toolOf(e);
  return [
    `${clientName(e)}${tool ? ` (${tool})` : ''}`,
    relativeAge(e.at, now),
    e.items.length ? itemsWord(e.items.length) : 'nothing recalled',
    e.erased ? `${e.erased} deleted since` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** For a screen reader: who was shown what, when. */
export function entryAccessibilityLabel(e: LedgerEntry, now = Date.now()): string {
  return `${clientName(e)}, through ${SURFACE_LABEL[e.served_to.surface] ?? e.served_to.surface}, ${relativeAge(e.at, now)}: ${itemsWord(e.items.length)}${e.query ? ` for "${shortText(e.query, 120)}"` : ''}.`;
}

/** An item's label: its text now, or why there is none. */
export function itemLabel(i: LedgerItem): string {
  if (i.text !== undefined) return shortText(i.text);
  return `${i.id} (no longer stored)`;
}

/** `memory · score 0.83 · reported used` */
export function itemDescription(i: LedgerItem): string {
  return [
    i.kind === 'evidence' ? 'a past turn' : 'memory',
    `score ${i.score.toFixed(2)}`,
    i.status && i.status !== 'active' ? (STATUS_LABEL[i.status] ?? i.status) : '',
    i.verdict ? `reported ${i.verdict}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

export interface LedgerTextContext {
  timeZone: string | undefined;
  projectLabel: (projectId: string) => string;
}

/** The page of one served recall (Markdown, shown rendered): when, to whom, the query, every item. */
export function servedMarkdown(e: LedgerEntry, c: LedgerTextContext): string {
  const cell = markdownCell;
  const lines = [
    `# What ${markdownText(clientName(e))} was shown`,
    '',
    `**When:** ${formatLocalWithUtc(e.at, c.timeZone)}  `,
    `**Through:** ${SURFACE_LABEL[e.served_to.surface] ?? e.served_to.surface}, \`${markdownText(e.served_to.tool ?? 'recall')}\`  `,
    `**Projects:** ${markdownText(e.project_ids.map(c.projectLabel).join(', ') || '—')}, and Global  `,
    `**Query:** ${e.query ? markdownText(e.query) : '— (read by id)'}  `,
    `**Tokens:** ${e.tokens}`,
    '',
    `## Served (${e.items.length})`,
    '',
  ];
  if (e.items.length === 0) lines.push('Nothing: the client got no Mnemo block for this.', '');
  else {
    lines.push(
      '| # | What it was shown (as it reads now) | Kind | Score | Now | Reported |',
      '|---:|---|---|---:|---|---|',
    );
    e.items.forEach((i, n) =>
      lines.push(
        `| ${n + 1} | ${cell(i.text !== undefined ? shortText(i.text, 200) : `${i.id} — no longer stored`)} | ${i.kind === 'evidence' ? 'a past turn' : 'memory'} | ${i.score.toFixed(2)} | ${cell(i.status ? (STATUS_LABEL[i.status] ?? i.status) : '—')} | ${i.verdict ?? '—'} |`,
      ),
    );
    lines.push('');
  }
  if (e.erased)
    lines.push(`${itemsWord(e.erased)} of this recall ${e.erased === 1 ? 'was' : 'were'} deleted since.`, '');
  lines.push(`Ledger entry ${e.id}.`, '');
  return lines.join('\n');
}

/** A memory's details: how often, when and to whom it was served. */
export function servedSection(
  r: LedgerListResult,
  memoryId: string,
  c: { timeZone: string | undefined },
): string {
  const lines = ['', 'Served to agents and people'];
  if (r.entries.length === 0) {
    lines.push('  not in the ledger: never recalled for an agent or a person (within the ledger retention)');
    return `${lines.join('\n')}\n`;
  }
  const count = r.total ?? r.entries.length;
  lines.push(
    `  ${count} time${count === 1 ? '' : 's'}${r.total === undefined ? ' or more' : ''}${count > r.entries.length ? `; the latest ${r.entries.length}` : ''}:`,
  );
  for (const e of r.entries) {
    const tool = e.served_to.tool ?? 'recall';
    const verdict = e.items.find((i) => i.id === memoryId)?.verdict;
    lines.push(
      `  ${formatLocalWithUtc(e.at, c.timeZone)}  ${clientName(e)} (${SURFACE_LABEL[e.served_to.surface] ?? e.served_to.surface}, ${tool})${e.query ? `  "${shortText(e.query, 80)}"` : ''}${verdict ? `  reported ${verdict}` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
