/**
 * Read-only virtual documents under the `mnemo:` scheme:
 * - `mnemo:/audit/<name>.log?project=<id>&memory=<id>`: the audit log, times in the user's zone with UTC beside;
 * - `mnemo:/injection/<name>.md?q=<query>`: Markdown (shown rendered) of what an agent would receive for a
 *   query: the recalled memories, the near misses with why each was not recalled, the block itself;
 * - `mnemo:/served/<name>.md?id=<entry id>`: Markdown (shown rendered) of one recall served to an agent or a
 *   person, from the ledger: when, to whom, the query, each item as it reads now;
 * - `mnemo:/capture/nothing-kept.md?o=<outcome>`: Markdown (shown rendered) of why a terminal session kept
 *   nothing, from the outcome the sidecar sent (views/captureText.ts).
 * The content is computed from the URI, so a restored editor regenerates it.
 */
import * as vscode from 'vscode';
import {
  AuditListRequest,
  LedgerListRequest,
  RecallRequest,
  type AuditEntry,
  type CaptureProcessedParams,
  type LedgerEntry,
} from '../../sidecar/protocol';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { describeError, logFailure } from '../errors';
import { projectLabel, workspaceProjectIds } from '../projects';
import { recallParams } from '../recallParams';
import { formatLocalWithUtc, zoneName } from '../time';
import { markdownCell, markdownText, nearMissReason } from '../shared/memoryText';
import { servedMarkdown } from './ledgerText';
import { nothingKeptMarkdown } from './captureText';
import { CATEGORY_LABEL, percent, shortText } from './present';

export const DOC_SCHEME = 'mnemo';
export const AUDIT_LIMIT = 1000;

export function auditUri(scope: { projectId?: string; memoryId?: string }): vscode.Uri {
  const name = scope.memoryId
    ? `memory-${scope.memoryId}`
    : scope.projectId
      ? `project-${scope.projectId.replace(/[^\w.-]+/g, '_')}`
      : 'all';
  const query = new URLSearchParams();
  if (scope.projectId) query.set('project', scope.projectId);
  if (scope.memoryId) query.set('memory', scope.memoryId);
  return vscode.Uri.from({ scheme: DOC_SCHEME, path: `/audit/${name}.log`, query: query.toString() });
}

/** `mnemo:/<kind>/<short text><ext>?<query>`: a file name any editor tab shows well. */
function docUri(kind: string, text: string, ext: string, query: Record<string, string>): vscode.Uri {
  const name = shortText(text, 40).replace(/[^\p{L}\p{N}_-]+/gu, '-') || kind;
  return vscode.Uri.from({
    scheme: DOC_SCHEME,
    path: `/${kind}/${name}${ext}`,
    query: new URLSearchParams(query).toString(),
  });
}

/** `mnemo:/served/<client>.md?id=<entry id>`: one recall from the ledger (regenerated from it). */
export function servedUri(entry: Pick<LedgerEntry, 'id' | 'served_to'>): vscode.Uri {
  return docUri('served', entry.served_to.name, '.md', { id: entry.id });
}

/** `mnemo:/capture/nothing-kept.md?o=…`: why a terminal session kept nothing (the outcome is in the URI). */
export function nothingKeptUri(n: { what: string; at: string; outcome: CaptureProcessedParams }): vscode.Uri {
  return docUri('capture', 'nothing kept', '.md', { o: JSON.stringify(n) });
}

export function injectionUri(query: string): vscode.Uri {
  return docUri('injection', query, '.md', { q: query, t: String(Date.now()) });
}

export class MnemoDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly ctx: Ctx) {}

  dispose(): void {
    this.emitter.dispose();
  }

  /** Regenerates the open Mnemo documents (memories changed, or a refresh was asked for). */
  refreshOpen(): void {
    for (const doc of vscode.workspace.textDocuments)
      if (doc.uri.scheme === DOC_SCHEME && /^\/(audit|served)\//.test(doc.uri.path))
        this.emitter.fire(doc.uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const q = new URLSearchParams(uri.query);
    try {
      if (uri.path.startsWith('/audit/')) {
        return await this.audit(q.get('project') ?? undefined, q.get('memory') ?? undefined, token);
      }
      if (uri.path.startsWith('/served/')) {
        const id = q.get('id') ?? '';
        const { entries } = await this.ctx.request(
          LedgerListRequest,
          { entry_id: id, with_text: true },
          token,
        );
        if (!entries[0])
          return `# Not in the ledger\n\nThe recall ${markdownText(id)} is no longer in the ledger (older than mnemo.ledger.retentionDays, or its project was wiped).\n`;
        return servedMarkdown(entries[0], { timeZone: config.display.timeZone(), projectLabel });
      }
      if (uri.path.startsWith('/capture/')) {
        const n = JSON.parse(q.get('o') ?? '{}') as {
          what: string;
          at: string;
          outcome: CaptureProcessedParams;
        };
        const when = formatLocalWithUtc(n.at, config.display.timeZone());
        return nothingKeptMarkdown({ what: n.what, when, outcome: n.outcome });
      }
      if (uri.path.startsWith('/injection/')) {
        return await this.injection(q.get('q') ?? '', token);
      }
      return `Unknown Mnemo document: ${uri.toString()}\n`;
    } catch (err) {
      logFailure(this.ctx.log, `Rendering ${uri.toString()}`, err);
      return `${describeError(err)}\n`;
    }
  }

  private async audit(
    projectId: string | undefined,
    memoryId: string | undefined,
    token: vscode.CancellationToken,
  ): Promise<string> {
    const { entries } = await this.ctx.request(
      AuditListRequest,
      { project_id: projectId, memory_id: memoryId, limit: AUDIT_LIMIT },
      token,
    );
    const zone = zoneName(config.display.timeZone());
    const scope = memoryId
      ? `memory ${memoryId}`
      : projectId
        ? `project ${projectLabel(projectId)} (${projectId})`
        : 'all projects';
    const header = [
      `Mnemo audit log — ${scope}`,
      `${entries.length} entries, newest first${entries.length >= AUDIT_LIMIT ? ` (the latest ${AUDIT_LIMIT})` : ''}. Times in ${zone}, UTC in parentheses.`,
      '',
    ];
    if (entries.length === 0) return [...header, 'Nothing recorded yet.', ''].join('\n');
    return [...header, ...entries.map(formatAuditEntry), ''].join('\n');
  }

  /** Markdown, shown rendered (markdown.showPreview): what is recalled, what is not and why, the block itself. */
  private async injection(query: string, token: vscode.CancellationToken): Promise<string> {
    if (!query.trim()) return 'Give a query to preview ("Mnemo: Preview Injection").\n';
    const topK = config.recall.topK();
    const minConfidence = config.recall.minConfidence();
    const tokenBudget = config.recall.tokenBudget();
    const result = await this.ctx.request(
      RecallRequest,
      // The same request as the chat and the agents' tool make (recallParams.ts), so this is their block.
      // A preview must not count as a use (it would change ranking and decay).
      recallParams(
        query,
        { surface: 'preview', name: 'Preview Injection' },
        { mark_used: false, explain: true },
      ),
      token,
    );
    const cell = markdownCell;
    const projects = [...workspaceProjectIds().map(projectLabel), 'Global'].join(', ');
    const lines = [
      `# What an agent would receive`,
      '',
      `**Query:** ${markdownText(query)}`,
      '',
      `Searched ${markdownText(projects)}: up to ${topK} memories above ${percent(minConfidence)} confidence, within ${tokenBudget} tokens.`,
      '',
      `## Recalled (${result.items.length})`,
      '',
    ];
    if (result.items.length === 0) {
      lines.push('Nothing recalled: the agent receives no Mnemo block for this query.', '');
    } else {
      lines.push('| # | Memory | Category | Project | Confidence | Match |', '|---:|---|---|---|---:|---|');
      result.items.forEach((it, i) => {
        const m = it.memory;
        const match = `${it.channels.map((c) => CHANNEL_WORD[c]).join(' + ')} ${it.score.toFixed(2)}`;
        const category =
          it.kind === 'evidence' ? 'a past turn (evidence)' : (CATEGORY_LABEL[m.category] ?? m.category);
        lines.push(
          `| ${i + 1} | ${cell(shortText(m.text, 140))} | ${cell(category)} | ${cell(projectLabel(m.project_id))} | ${it.kind === 'evidence' ? '—' : percent(m.confidence_score)} | ${match} |`,
        );
      });
      lines.push('');
    }
    const misses = result.near_misses ?? [];
    lines.push(`## Not recalled (${misses.length} near misses)`, '');
    if (misses.length === 0) lines.push('No other memory is close to this query.', '');
    else {
      lines.push('| Memory | Similarity | Not recalled because |', '|---|---:|---|');
      for (const n of misses)
        lines.push(
          `| ${cell(shortText(n.memory.text, 120))} | ${n.score.toFixed(2)} | ${cell(nearMissReason(n, { topK, minConfidence, tokenBudget, projectLabel }))} |`,
        );
      lines.push('');
    }
    lines.push(
      `## The block (${result.tokens} tokens)`,
      '',
      "Exactly what is added to the agent's context:",
      '',
      '`````text',
      result.block || '(empty)',
      '`````',
      '',
    );
    return lines.join('\n');
  }
}

/** How a recalled item was found, in words. */
const CHANNEL_WORD: Record<string, string> = { vector: 'meaning', lexical: 'words', rule: 'shared names' };

export function formatAuditEntry(e: AuditEntry): string {
  const parts = [
    formatLocalWithUtc(e.at, config.display.timeZone()),
    e.action.padEnd(8),
    e.memory_id ?? '-',
    e.project_id ? `[${e.project_id}]` : '',
    `by ${e.by}`,
  ];
  let line = parts.filter(Boolean).join('  ');
  if (e.changes) {
    const changes = Object.entries(e.changes).map(
      ([field, [before, after]]) => `${field}: ${show(before)} → ${show(after)}`,
    );
    if (changes.length) line += `\n    ${changes.join('\n    ')}`;
  }
  if (e.note) line += `\n    note: ${e.note}`;
  return line;
}

function show(v: unknown): string {
  if (v === undefined) return '∅';
  const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}
