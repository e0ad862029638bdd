/**
 * Read-only virtual documents under the `mnemo:` scheme:
 * - `mnemo:/audit/<name>.log?project=<id>&memory=<id>`: the audit log, times in the user's zone with UTC beside;
 * - `mnemo:/injection/<name>.md?q=<query>`: exactly the block an agent would receive for a query, with
 *   each memory's score and channel.
 * The content is computed from the URI, so a restored editor regenerates it.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { AuditListRequest, GetRequest, RecallRequest, type AuditEntry } from '../../sidecar/protocol';
import { parseFileRef } from '../commands/sourceRef';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { describeError } from '../errors';
import { projectLabel, workspaceProjectIds } from '../projects';
import { formatLocalWithUtc, zoneName } from '../time';
import { memoryDetail } from './memoryText';
import { CATEGORY_LABEL, percent, shortText, SOURCE_LABEL } from './present';

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

/** `mnemo:/memory/<short text>.txt?id=<id>`: a memory's details in words (regenerated when it changes). */
export function memoryUri(memory: Memory): vscode.Uri {
  const name = shortText(memory.text, 40).replace(/[^\p{L}\p{N}_-]+/gu, '-') || 'memory';
  return vscode.Uri.from({
    scheme: DOC_SCHEME,
    path: `/memory/${name}.txt`,
    query: new URLSearchParams({ id: memory.id }).toString(),
  });
}

export function injectionUri(query: string): vscode.Uri {
  const name = shortText(query, 40).replace(/[^\p{L}\p{N}_-]+/gu, '-') || 'query';
  return vscode.Uri.from({
    scheme: DOC_SCHEME,
    path: `/injection/${name}.md`,
    query: new URLSearchParams({ q: query, t: String(Date.now()) }).toString(),
  });
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
      if (doc.uri.scheme === DOC_SCHEME && /^\/(audit|memory)\//.test(doc.uri.path))
        this.emitter.fire(doc.uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const q = new URLSearchParams(uri.query);
    try {
      if (uri.path.startsWith('/audit/')) {
        return await this.audit(q.get('project') ?? undefined, q.get('memory') ?? undefined, token);
      }
      if (uri.path.startsWith('/memory/')) {
        const memory = await this.ctx.request(GetRequest, { id: q.get('id') ?? '' }, token);
        return memoryDetail(memory, {
          projectLabel,
          timeZone: config.display.timeZone(),
          isFileRef: (r) => parseFileRef(r) !== undefined,
        });
      }
      if (uri.path.startsWith('/injection/')) {
        return await this.injection(q.get('q') ?? '', token);
      }
      return `Unknown Mnemo document: ${uri.toString()}\n`;
    } catch (err) {
      this.ctx.log.error(
        `Rendering ${uri.toString()} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
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

  private async injection(query: string, token: vscode.CancellationToken): Promise<string> {
    if (!query.trim()) return 'Give a query to preview ("Mnemo: Preview Injection").\n';
    const result = await this.ctx.request(
      RecallRequest,
      {
        query,
        project_ids: workspaceProjectIds(),
        top_k: config.recall.topK(),
        min_confidence: config.recall.minConfidence(),
        token_budget: config.recall.tokenBudget(),
        // A preview must not count as a use (it would change ranking and decay).
        mark_used: false,
      },
      token,
    );
    const lines = [
      `# Mnemo injection preview`,
      '',
      `Query: \`${query.replace(/`/g, "'")}\``,
      '',
      `Projects: ${[...workspaceProjectIds(), 'global'].join(', ')} · top_k ${config.recall.topK()} · min confidence ${config.recall.minConfidence()} · budget ${config.recall.tokenBudget()} tokens`,
      '',
      `## Recalled memories (${result.items.length})`,
      '',
    ];
    if (result.items.length === 0) {
      lines.push('Nothing recalled above the confidence threshold: the agent receives no Mnemo block.', '');
    } else {
      lines.push(
        '| # | score | channel | confidence | category | source | project | memory |',
        '|---|---|---|---|---|---|---|---|',
      );
      result.items.forEach((it, i) => {
        const m = it.memory;
        lines.push(
          `| ${i + 1} | ${it.score.toFixed(3)} | ${it.channel} | ${percent(m.confidence_score)} | ${CATEGORY_LABEL[m.category] ?? m.category} | ${SOURCE_LABEL[m.source_type] ?? m.source_type} | ${projectLabel(m.project_id)} | ${shortText(m.text, 80).replace(/\|/g, '\\|')} (${m.id}) |`,
        );
      });
      lines.push('');
    }
    lines.push(
      `## Block the agent receives (${result.tokens} tokens)`,
      '',
      'Everything between the fences, verbatim:',
      '',
      '`````text',
      result.block,
      '`````',
      '',
    );
    return lines.join('\n');
  }
}

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
