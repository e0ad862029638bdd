/**
 * `mnemo.views.review`: memories waiting in the review queue (status pending) of the workspace's
 * projects and Global, highest score first, with the reason that kept them. Multi-select: confirm or
 * reject many at once.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { ListRequest } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import { projectLabel, workspaceProjects } from '../projects';
import { ContextValue } from './contextValues';
import { ListTreeProvider } from './listTree';
import { explainReason } from './reasons';
import { accessibilityLabel, decorationUri, flagged, icon, percent, shortText, tooltip } from './present';

export const REVIEW_LIMIT = 200;

export interface ReviewNode {
  kind: 'review';
  id: string;
  memory: Memory;
}

export class ReviewTreeProvider
  extends ListTreeProvider<ReviewNode>
  implements vscode.TreeDataProvider<ReviewNode>
{
  constructor(ctx: Ctx) {
    super(ctx, 'Loading the review queue');
  }

  getTreeItem(node: ReviewNode): vscode.TreeItem {
    const m = node.memory;
    const item = new vscode.TreeItem(shortText(m.text), vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    const why = m.flagged_by ? flagged(m) : explainReason(m.reason);
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
    item.tooltip ??= tooltip(node.memory);
    return item;
  }

  getParent(): undefined {
    return undefined;
  }

  async getChildren(node?: ReviewNode): Promise<ReviewNode[]> {
    if (node || !this.ctx.isRunning || this.ctx.status?.health === 'error') return [];
    return this.rows();
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

  protected async load(): Promise<ReviewNode[]> {
    const memories = await this.pending();
    return memories.map((memory) => ({ kind: 'review', id: `r:${memory.id}`, memory }));
  }
}
