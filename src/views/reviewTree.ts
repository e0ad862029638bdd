/**
 * `mnemo.views.review`: memories waiting in the review queue (status pending) of the workspace's
 * projects and Global, highest score first, with the reason that kept them. Rules imported from a file
 * wait under that file (reviewGroups.ts), with "Confirm All from File" (what the firewall held is left
 * for one-by-one review). The rest as one ranked list, or grouped by session, source or topic
 * ("Group Review Queue…" picks, remembered per workspace). Multi-select: confirm or reject many at once; a
 * group is confirmed or rejected whole, as one undoable step.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { ListRequest } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import { projectLabel, workspaceProjects } from '../projects';
import { ContextKey, ContextValue } from '../shared/contextValues';
import { ListTreeProvider } from './listTree';
import { explainReason } from '../shared/reasons';
import {
  describeGroup,
  groupImports,
  groupReview,
  GROUPING_LABEL,
  REVIEW_GROUPINGS,
  type ReviewFileGroup,
  type ReviewGrouping,
} from './reviewGroups';
import { accessibilityLabel, decorationUri, flagged, icon, percent, shortText, tooltip } from './present';

export const REVIEW_LIMIT = 200;

export type ReviewNode =
  | { kind: 'review'; id: string; memory: Memory; parent?: ReviewFileNode | ReviewGroupNode }
  | ReviewFileNode
  | ReviewGroupNode;

/** The rules imported from one file, waiting together. */
export interface ReviewFileNode {
  kind: 'reviewFile';
  id: string;
  group: ReviewFileGroup;
  children: ReviewNode[];
}

/** A group of the rest (by session, source or topic), decided whole. */
export interface ReviewGroupNode {
  kind: 'reviewGroup';
  id: string;
  label: string;
  memories: Memory[];
  children: ReviewNode[];
}

const GROUPING_KEY = 'mnemo.review.grouping';

export class ReviewTreeProvider
  extends ListTreeProvider<ReviewNode>
  implements vscode.TreeDataProvider<ReviewNode>
{
  constructor(
    ctx: Ctx,
    private readonly state?: vscode.Memento,
  ) {
    super(ctx, 'Loading the review queue', ContextKey.ReviewEmpty);
  }

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

  getTreeItem(node: ReviewNode): vscode.TreeItem {
    if (node.kind === 'reviewFile') return fileItem(node);
    if (node.kind === 'reviewGroup') return groupItem(node);
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
    return node.kind === 'review' ? node.parent : undefined;
  }

  async getChildren(node?: ReviewNode): Promise<ReviewNode[]> {
    if (node) return node.kind === 'review' ? [] : node.children;
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

  /** Imported rules under their file (files first), then the rest ranked or in the chosen groups. */
  protected async load(): Promise<ReviewNode[]> {
    const { files, single } = groupImports(await this.pending());
    const withChildren = <N extends ReviewFileNode | ReviewGroupNode>(node: N, memories: Memory[]): N => {
      node.children = memories.map((memory) => ({
        kind: 'review',
        id: `r:${memory.id}`,
        memory,
        parent: node,
      }));
      return node;
    };
    const fileNodes = files.map((group) =>
      withChildren<ReviewFileNode>(
        { kind: 'reviewFile', id: `f:${group.project_id}:${group.file}`, group, children: [] },
        group.memories,
      ),
    );
    if (this.grouping === 'ranked')
      return [
        ...fileNodes,
        ...groupReview(single, 'ranked')[0]!.memories.map(
          (memory): ReviewNode => ({ kind: 'review', id: `r:${memory.id}`, memory }),
        ),
      ];
    const groups = groupReview(single, this.grouping).map((g) =>
      withChildren<ReviewGroupNode>(
        { kind: 'reviewGroup', id: `g:${g.key}`, label: g.label, memories: g.memories, children: [] },
        g.memories,
      ),
    );
    return [...fileNodes, ...groups];
  }
}

/** A group's row (session, source or topic): Confirm All / Reject All in Group on it. */
function groupItem(node: ReviewGroupNode): vscode.TreeItem {
  const g = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
  g.id = node.id;
  g.description = `${node.memories.length} pending`;
  g.contextValue = ContextValue.ReviewGroup;
  g.iconPath = new vscode.ThemeIcon('list-tree');
  return g;
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
