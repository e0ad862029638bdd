/**
 * `mnemo.views.review`: memories waiting in the review queue (status pending) of the workspace's
 * projects and Global, highest score first, with the reason that kept them — as one ranked list, or grouped
 * by session, source or topic (reviewGroups.ts; "Group Review Queue…" picks, remembered per workspace).
 * Multi-select: confirm or reject many at once; a group is confirmed or rejected whole, as one undoable step.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { ListRequest } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import { logFailure } from '../errors';
import { projectLabel, workspaceProjects } from '../projects';
import { ContextValue } from './contextValues';
import { groupReview, GROUPING_LABEL, REVIEW_GROUPINGS, type ReviewGrouping } from './reviewGroups';
import { explainReason } from './reasons';
import { accessibilityLabel, decorationUri, icon, percent, shortText, tooltip } from './present';

export const REVIEW_LIMIT = 200;

export type ReviewNode =
  | { kind: 'review'; id: string; memory: Memory }
  | { kind: 'reviewGroup'; id: string; label: string; memories: Memory[]; items: ReviewNode[] };

const GROUPING_KEY = 'mnemo.review.grouping';

export class ReviewTreeProvider implements vscode.TreeDataProvider<ReviewNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ReviewNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private items: ReviewNode[] | undefined;
  private loading: Promise<ReviewNode[]> | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly state?: vscode.Memento,
  ) {}

  get grouping(): ReviewGrouping {
    const g = this.state?.get<string>(GROUPING_KEY);
    return (REVIEW_GROUPINGS as readonly string[]).includes(g ?? '') ? (g as ReviewGrouping) : 'ranked';
  }

  async setGrouping(g: ReviewGrouping): Promise<void> {
    await this.state?.update(GROUPING_KEY, g);
    this.refresh();
  }

  /** "By session" (shown in the view's description), or undefined when ranked. */
  get groupingLabel(): string | undefined {
    return this.grouping === 'ranked' ? undefined : GROUPING_LABEL[this.grouping];
  }

  dispose(): void {
    this.emitter.dispose();
  }

  /** Re-renders the loaded items without reloading them (ages stay true). */
  repaint(): void {
    if (this.items) this.emitter.fire();
  }

  refresh(): void {
    this.items = undefined;
    this.loading = undefined;
    this.emitter.fire();
  }

  getTreeItem(node: ReviewNode): vscode.TreeItem {
    if (node.kind === 'reviewGroup') {
      const g = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      g.id = node.id;
      g.description = `${node.memories.length} pending`;
      g.contextValue = ContextValue.ReviewGroup;
      g.iconPath = new vscode.ThemeIcon('list-tree');
      return g;
    }
    const m = node.memory;
    const item = new vscode.TreeItem(shortText(m.text), vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    const why = explainReason(m.reason);
    item.description = `${percent(m.confidence_score)} · ${projectLabel(m.project_id)} · ${why}`;
    // The tooltip is built on hover (resolveTreeItem): a reload renders every pending memory.
    item.iconPath = icon(m);
    item.resourceUri = decorationUri(m);
    item.contextValue = ContextValue.ReviewItem;
    item.accessibilityInformation = {
      label: `Pending: ${accessibilityLabel(m)} Worth ${m.score.toFixed(1)} of 10. Kept because: ${why}.`,
      role: 'treeitem',
    };
    return item;
  }

  /** A memory's tooltip (its text and fields in words), built when the pointer rests on it. */
  resolveTreeItem(item: vscode.TreeItem, node: ReviewNode): vscode.TreeItem {
    if (node.kind === 'review') item.tooltip ??= tooltip(node.memory);
    return item;
  }

  getParent(): undefined {
    return undefined;
  }

  async getChildren(node?: ReviewNode): Promise<ReviewNode[]> {
    if (node?.kind === 'reviewGroup') return node.items;
    if (node || !this.ctx.isRunning || this.ctx.status?.health === 'error') return [];
    if (this.items) return this.items;
    this.loading ??= this.load();
    try {
      return await this.loading;
    } catch (err) {
      this.loading = undefined;
      logFailure(this.ctx.log, `Loading the review queue`, err);
      return [];
    }
  }

  /** Pending memories, highest score first (the digest takes the first ten). */
  async pending(limit = REVIEW_LIMIT): Promise<Memory[]> {
    const projects = workspaceProjects();
    const lists = await Promise.all(
      projects.map((p) =>
        this.ctx.request(ListRequest, {
          project_id: p.projectId,
          include_global: false,
          in_review: true, // pending, and the older memories a pending one may change
          limit,
        }),
      ),
    );
    const seen = new Set<string>();
    const all: Memory[] = [];
    for (const l of lists) for (const m of l.items) if (!seen.has(m.id) && seen.add(m.id)) all.push(m);
    return all.sort((a, b) => b.score - a.score || b.created_at.localeCompare(a.created_at)).slice(0, limit);
  }

  private async load(): Promise<ReviewNode[]> {
    const memories = await this.pending();
    const leaf = (memory: Memory): ReviewNode => ({ kind: 'review', id: `r:${memory.id}`, memory });
    const groups = groupReview(memories, this.grouping);
    this.items =
      this.grouping === 'ranked'
        ? (groups[0]?.memories ?? []).map(leaf)
        : groups.map((g) => ({
            kind: 'reviewGroup' as const,
            id: `g:${g.key}`,
            label: g.label,
            memories: g.memories,
            items: g.memories.map(leaf),
          }));
    return this.items;
  }

  /** The loaded memories (no request). */
  get loaded(): readonly Memory[] {
    return (this.items ?? []).flatMap((n) => (n.kind === 'review' ? [n.memory] : n.memories));
  }
}
