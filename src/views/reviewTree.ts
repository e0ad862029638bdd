/**
 * `mnemo.views.review`: memories waiting in the review queue (status pending) of the workspace's
 * projects and Global, highest score first, with the reason that kept them. Rules imported from a file
 * wait under that file (reviewGroups.ts), with "Confirm All from File" (what the firewall held is left
 * for one-by-one review). Multi-select: confirm or reject many at once.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { ListRequest } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import { projectLabel, workspaceProjects } from '../projects';
import { ContextKey, ContextValue } from './contextValues';
import { ListTreeProvider } from './listTree';
import { explainReason } from './reasons';
import { describeGroup, groupReview, type ReviewFileGroup } from './reviewGroups';
import { accessibilityLabel, decorationUri, flagged, icon, percent, shortText, tooltip } from './present';

export const REVIEW_LIMIT = 200;

export type ReviewNode =
  | { kind: 'review'; id: string; memory: Memory; file?: ReviewFileNode }
  | ReviewFileNode;

/** The rules imported from one file, waiting together. */
export interface ReviewFileNode {
  kind: 'reviewFile';
  id: string;
  group: ReviewFileGroup;
  children: ReviewNode[];
}

export class ReviewTreeProvider
  extends ListTreeProvider<ReviewNode>
  implements vscode.TreeDataProvider<ReviewNode>
{
  constructor(ctx: Ctx) {
    super(ctx, 'Loading the review queue', ContextKey.ReviewEmpty);
  }

  getTreeItem(node: ReviewNode): vscode.TreeItem {
    if (node.kind === 'reviewFile') return fileItem(node);
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
    if (node.kind === 'review') item.tooltip ??= tooltip(node.memory);
    return item;
  }

  getParent(node: ReviewNode): ReviewNode | undefined {
    return node.kind === 'review' ? node.file : undefined;
  }

  async getChildren(node?: ReviewNode): Promise<ReviewNode[]> {
    if (node) return node.kind === 'reviewFile' ? node.children : [];
    if (!this.ctx.isRunning || this.ctx.status?.health === 'error') return [];
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

  /** Imported rules under their file (files first), then the rest, as pending() orders them. */
  protected async load(): Promise<ReviewNode[]> {
    const { files, single } = groupReview(await this.pending());
    const groups = files.map((group): ReviewFileNode => {
      const node: ReviewFileNode = {
        kind: 'reviewFile',
        id: `f:${group.project_id}:${group.file}`,
        group,
        children: [],
      };
      node.children = group.memories.map((memory) => ({
        kind: 'review',
        id: `r:${memory.id}`,
        memory,
        file: node,
      }));
      return node;
    });
    return [
      ...groups,
      ...single.map((memory): ReviewNode => ({ kind: 'review', id: `r:${memory.id}`, memory })),
    ];
  }
}

/** A file's row: its rules wait under it, "Confirm All from File" on it. */
function fileItem(node: ReviewFileNode): vscode.TreeItem {
  const g = node.group;
  const item = new vscode.TreeItem(g.file, vscode.TreeItemCollapsibleState.Expanded);
  item.id = node.id;
  item.description = `${describeGroup(g)} · ${projectLabel(g.project_id)}`;
  item.iconPath = new vscode.ThemeIcon('file');
  item.contextValue = ContextValue.ReviewFile;
  item.tooltip = `Imported from ${g.file}: an import is not a confirmation. Confirm All confirms them at once${g.held ? `, except the ${g.held} the firewall held (each needs your own look)` : ''}.`;
  item.accessibilityInformation = {
    label: `Imported from ${g.file}, ${describeGroup(g)}, ${projectLabel(g.project_id)}.`,
    role: 'treeitem',
  };
  return item;
}
