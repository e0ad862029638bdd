/**
 * `mnemo.views.memories`: project (one per workspace folder, plus Global, then "Other projects" holding
 * the store's other projects) > category > source type > memory ("grouped"), or project > memory
 * ("recent", one flat list in the chosen order). Wrong, archived and superseded memories are hidden unless
 * asked for; a "N hidden" row under each project says how many and shows them. The mode, the order, the
 * filter and whether hidden ones show are remembered per workspace (workspaceState). The numbers come from one
 * `mnemo/memory/counts` per project; memories load lazily with `mnemo/memory/list` (paged). A change
 * (views/index.ts, the one reload path) refreshes only the subtrees of the projects it names. Node objects are kept in a registry so that the same id
 * is always the same object (needed by onDidChangeTreeData(element) and TreeView.reveal).
 */
import * as vscode from 'vscode';
import {
  CATEGORIES,
  GLOBAL_PROJECT,
  SOURCE_TYPES,
  type Category,
  type Memory,
  type MemoryStatus,
  type SourceType,
} from '../../sidecar/model';
import { CountsRequest, ListRequest, type ListParams } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import { logFailure } from '../errors';
import { projectLabel, workspaceProjects } from '../projects';
import { daysAgoUtc } from '../time';
import { ContextValue } from '../shared/contextValues';
import { isEmptyWorkspace, treeCounts, type TreeCounts } from './counts';
import type { WorkspaceCounts } from './workspaceCounts';
import {
  accessibilityLabel,
  CATEGORY_ICON,
  CATEGORY_LABEL,
  decorationUri,
  description,
  icon,
  shortText,
  SOURCE_ICON,
  SOURCE_LABEL,
  STATUS_CONTEXT,
  tooltip,
} from './present';
import { BuiltinCommand, Command, WALKTHROUGH } from '../commandIds';

/** The hidden statuses in words, for the "N hidden" row. */
const HIDDEN_WORD: Partial<Record<MemoryStatus, string>> = {
  wrong: 'wrong',
  archived: 'archived',
  superseded: 'superseded',
};

export const PAGE_SIZE = 50;
/** Statuses the tree lists unless a filter or "Show Hidden" says otherwise. */
export const TREE_STATUSES: MemoryStatus[] = ['active', 'pending', 'confirmed'];
/** Kept for history, never recalled: out of sight by default, counted in the "N hidden" row. */
export const HIDDEN_STATUSES: MemoryStatus[] = ['wrong', 'archived', 'superseded'];
export const ALL_STATUSES: MemoryStatus[] = [...TREE_STATUSES, ...HIDDEN_STATUSES];

/** A filter set from the view title ("Filter…") or the dashboard (clicking a number); "Clear Filter" clears it. */
export interface TreeFilter {
  /** Shown in the view's description, e.g. "pending in acme/api". */
  label: string;
  projectId?: string;
  /** UTC ISO lower bound on created_at. */
  since?: string;
  /** Created in the last this many days (counted from now at every load, so a remembered filter stays true). */
  days?: number;
  isActionable?: boolean;
  status?: MemoryStatus[];
  category?: Category;
  sourceType?: SourceType;
  maxConfidence?: number;
  minConfidence?: number;
}

export type TreeMode = 'grouped' | 'recent';
export type TreeSort = NonNullable<ListParams['sort']>;

/** How the tree lists memories (view title: Recent / Grouped, Sort…, Show / Hide Wrong and Archived). */
export interface TreeOptions {
  mode: TreeMode;
  sort: TreeSort;
  /** Also list wrong, archived and superseded memories. */
  showHidden: boolean;
}

/** The orders in words (the Sort picker and the view's description). */
export const SORT_LABEL: Record<TreeSort, string> = {
  newest: 'newest first',
  oldest: 'oldest first',
  confidence: 'highest confidence first',
  used: 'most used first',
};

export const DEFAULT_OPTIONS: TreeOptions = { mode: 'grouped', sort: 'newest', showHidden: false };
const OPTIONS_KEY = 'mnemo.tree.options';
const FILTER_KEY = 'mnemo.tree.filter';

/** Where the tree keeps its options (the workspace's Memento; a Map in tests). */
export interface OptionStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export interface ProjectNode {
  kind: 'project';
  id: string;
  projectId: string;
  /** Set for a project outside the workspace, listed under "Other projects". */
  parent?: OthersNode;
}
/** "Other projects": the store's projects that are not open in this workspace (never recalled here). */
export interface OthersNode {
  kind: 'others';
  id: string;
}
export interface CategoryNode {
  kind: 'category';
  id: string;
  parent: ProjectNode;
  category: Category;
  total: number;
}
export interface SourceNode {
  kind: 'source';
  id: string;
  parent: CategoryNode;
  sourceType: SourceType;
  total: number;
}
/** What a page of memories hangs under: a source node (grouped) or the project itself (recent). */
export type ListNode = SourceNode | ProjectNode;
export interface MemoryNode {
  kind: 'memory';
  id: string;
  parent: ListNode;
  memory: Memory;
}
export interface MoreNode {
  kind: 'more';
  id: string;
  parent: ListNode;
}
/** "3 hidden: 2 wrong, 1 archived" under a project: clicking shows them. */
export interface HiddenNode {
  kind: 'hidden';
  id: string;
  parent: ProjectNode;
  byStatus: [MemoryStatus, number][];
}
/** "Filtered: pending in acme/api" above everything while a filter is on (like the Problems view); ✕ clears it. */
export interface FilterNode {
  kind: 'filter';
  id: string;
}
export interface InfoNode {
  kind: 'info';
  id: string;
  parent?: ProjectNode;
  message: string;
  command?: vscode.Command;
  /** The rest of the sentence: tooltip and screen-reader label (the row's label stays short). */
  detail?: string;
}
export type TreeNode =
  | OthersNode
  | ProjectNode
  | CategoryNode
  | SourceNode
  | MemoryNode
  | MoreNode
  | HiddenNode
  | FilterNode
  | InfoNode;

interface Page {
  items: Memory[];
  total: number;
  /** Memories revealed from search that are not in the loaded pages yet. */
  pinned: Memory[];
}

const SEP = '\u0000';
const OTHERS_ID = `o${SEP}others`;
const FILTER_ID = `f${SEP}filter`;
const CLEAR_FILTER: vscode.Command = { command: Command.clearFilter, title: 'Clear Filter' };
/** The walkthrough (package.json `walkthroughs`): what gives an empty project its first memories. */
const GET_STARTED: vscode.Command = {
  command: BuiltinCommand.openWalkthrough,
  title: 'Get Started with Mnemo',
  arguments: [WALKTHROUGH, false],
};

export class MemoryTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly filterEmitter = new vscode.EventEmitter<TreeFilter | undefined>();
  readonly onDidChangeFilter = this.filterEmitter.event;
  private readonly optionsEmitter = new vscode.EventEmitter<TreeOptions>();
  readonly onDidChangeOptions = this.optionsEmitter.event;

  private readonly registry = new Map<string, TreeNode>();
  private readonly childCache = new Map<string, TreeNode[]>();
  private readonly pages = new Map<string, Page>();
  private readonly extraProjects = new Set<string>();
  /** One `mnemo/memory/counts` per project (under the filter), shared by its category and source nodes. */
  private readonly counts = new Map<string, Promise<TreeCounts & { hidden: [MemoryStatus, number][] }>>();
  private _filter: TreeFilter | undefined;
  private _options: TreeOptions;
  /** Bumped on every refresh; a load that started before a refresh does not write stale results. */
  private generation = 0;

  private othersSignature = '';
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly ctx: Ctx,
    private readonly scope: WorkspaceCounts,
    private readonly state?: OptionStore,
  ) {
    this._options = { ...DEFAULT_OPTIONS, ...(state?.get<Partial<TreeOptions>>(OPTIONS_KEY) ?? {}) };
    this._filter = state?.get<TreeFilter>(FILTER_KEY) ?? undefined;
    // The "Other projects" node appears, disappears or changes its list when the store's other projects do.
    this.subscription = scope.onDidChange((c) => {
      const signature = `${isEmptyWorkspace(c)}|${(c?.others ?? []).map((p) => `${p.projectId}:${p.memories}`).join(',')}`;
      if (signature === this.othersSignature) return;
      this.othersSignature = signature;
      this.childCache.delete('');
      this.childCache.delete(OTHERS_ID);
      this.emitter.fire();
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
    this.filterEmitter.dispose();
    this.optionsEmitter.dispose();
  }

  get filter(): TreeFilter | undefined {
    return this._filter;
  }

  get options(): TreeOptions {
    return this._options;
  }

  /** Changes the mode, order or hidden-rows option (remembered for the workspace) and reloads. */
  setOptions(change: Partial<TreeOptions>): void {
    this._options = { ...this._options, ...change };
    void this.state?.update(OPTIONS_KEY, this._options);
    this.optionsEmitter.fire(this._options);
    this.refreshAll();
  }

  setFilter(filter: TreeFilter | undefined): void {
    this._filter = filter;
    void this.state?.update(FILTER_KEY, filter);
    if (filter?.projectId && !workspaceProjects().some((p) => p.projectId === filter.projectId))
      this.extraProjects.add(filter.projectId);
    this.filterEmitter.fire(filter);
    this.refreshAll();
  }

  // ------------------------------------------------------------------ refresh

  refreshAll(): void {
    this.generation++;
    this.childCache.clear();
    this.pages.clear();
    this.counts.clear();
    this.emitter.fire();
  }

  /** Re-renders the loaded items without reloading them (ages such as "3 minutes ago" stay true). */
  repaint(): void {
    this.emitter.fire();
  }

  /** Refresh only these projects' subtrees (unknown projects are ignored: they are not shown). */
  refreshProjects(projectIds: string[]): void {
    this.generation++;
    for (const projectId of projectIds) {
      const node = this.registry.get(this.projectKey(projectId));
      this.counts.delete(projectId);
      if (!node) continue;
      const prefix = `${projectId}${SEP}`;
      for (const key of [...this.childCache.keys()]) {
        if (key === node.id || key.slice(2).startsWith(prefix)) this.childCache.delete(key);
      }
      for (const key of [...this.pages.keys()]) {
        if (key === node.id || key.slice(2).startsWith(prefix)) this.pages.delete(key);
      }
      this.emitter.fire(node);
    }
  }

  // ------------------------------------------------------------------ TreeDataProvider

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'others':
        return this.othersItem(node);
      case 'project':
        return this.projectItem(node);
      case 'category':
        return this.categoryItem(node);
      case 'source':
        return this.sourceItem(node);
      case 'memory':
        return this.memoryItem(node);
      case 'hidden':
        return this.hiddenItem(node);
      case 'more':
        return this.moreItem(node);
      case 'filter':
        return this.filterItem(node);
      case 'info':
        return this.infoItem(node);
    }
  }

  /** "Other projects": the store's projects not open in this workspace. */
  private othersItem(node: OthersNode): vscode.TreeItem {
    const others = this.scope.current?.others ?? [];
    const n = others.reduce((sum, p) => sum + p.memories, 0);
    const item = new vscode.TreeItem('Other projects', vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    item.description = others.length
      ? `${n} ${n === 1 ? 'memory' : 'memories'} in ${others.length}`
      : undefined;
    item.tooltip =
      "Projects in the store that are not open in this workspace. Their memories are not recalled here (unless promoted to Global) and are not in this workspace's counts.";
    item.iconPath = new vscode.ThemeIcon('folder-library');
    item.contextValue = ContextValue.Others;
    item.accessibilityInformation = {
      label: `Other projects, not open in this workspace: ${n} memories in ${others.length} projects`,
    };
    return item;
  }

  /** A project: a workspace folder's, Global, or one under "Other projects". */
  private projectItem(node: ProjectNode): vscode.TreeItem {
    const isGlobal = node.projectId === GLOBAL_PROJECT;
    const other = this.scope.current?.others.find((p) => p.projectId === node.projectId);
    const item = new vscode.TreeItem(
      projectLabel(node.projectId),
      node.parent ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = node.id;
    item.description = isGlobal
      ? 'shared by every project'
      : other
        ? `${other.memories}${other.pending ? ` · ${other.pending} pending` : ''}`
        : node.projectId;
    item.tooltip = isGlobal
      ? 'Global memories are recalled in every project.'
      : node.parent
        ? `Project id: ${node.projectId} — not open in this workspace, so not recalled here.`
        : `Project id: ${node.projectId}`;
    item.iconPath = new vscode.ThemeIcon(isGlobal ? 'globe' : 'repo');
    item.contextValue = ContextValue.Project;
    item.accessibilityInformation = {
      label: `${isGlobal ? 'Global memories' : `Project ${projectLabel(node.projectId)}`}, id ${node.projectId}`,
    };
    return item;
  }

  /** A category of a project (persona, episodic, instruction) with its count. */
  private categoryItem(node: CategoryNode): vscode.TreeItem {
    const item = new vscode.TreeItem(
      CATEGORY_LABEL[node.category],
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = node.id;
    item.description = String(node.total);
    item.iconPath = new vscode.ThemeIcon(CATEGORY_ICON[node.category]);
    item.contextValue = ContextValue.Category;
    item.accessibilityInformation = { label: `${CATEGORY_LABEL[node.category]} memories, ${node.total}` };
    return item;
  }

  /** Where a category's memories came from (chat, terminal, manual…) with its count. */
  private sourceItem(node: SourceNode): vscode.TreeItem {
    const item = new vscode.TreeItem(
      SOURCE_LABEL[node.sourceType],
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = node.id;
    item.description = String(node.total);
    item.iconPath = new vscode.ThemeIcon(SOURCE_ICON[node.sourceType]);
    item.contextValue = ContextValue.Source;
    item.accessibilityInformation = {
      label: `From ${SOURCE_LABEL[node.sourceType]}, ${node.total} memories`,
    };
    return item;
  }

  /** A memory: its text, its state in words, its details on click (the tooltip is built on hover). */
  private memoryItem(node: MemoryNode): vscode.TreeItem {
    const m = node.memory;
    const item = new vscode.TreeItem(shortText(m.text), vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    // Flat list: the category goes to the description (its icon shows it too).
    item.description =
      node.parent.kind === 'project'
        ? `${CATEGORY_LABEL[m.category] ?? m.category} · ${description(m)}`
        : description(m);
    // The tooltip is built on hover (resolveTreeItem): a reload renders every listed memory.
    item.iconPath = icon(m);
    item.resourceUri = decorationUri(m);
    item.contextValue = STATUS_CONTEXT[m.status] ?? ContextValue.MemoryActive;
    item.accessibilityInformation = { label: accessibilityLabel(m), role: 'treeitem' };
    // Click or Enter: the memory's details (text, fields in words, the conversation it came from).
    item.command = {
      command: Command.showMemory,
      title: 'Show Memory Details',
      arguments: [node, undefined, { preserveFocus: true }],
    };
    return item;
  }

  /** "N hidden": the wrong and archived memories of a project, listed on click. */
  private hiddenItem(node: HiddenNode): vscode.TreeItem {
    const n = node.byStatus.reduce((sum, [, c]) => sum + c, 0);
    const parts = node.byStatus.map(([status, c]) => `${c} ${HIDDEN_WORD[status] ?? status}`).join(', ');
    const item = new vscode.TreeItem(`${n} hidden`, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = `${parts} — show`;
    item.tooltip = `${parts}: kept for the record and never recalled. Click to list them ("Hide Wrong and Archived" in the view's menu hides them again).`;
    item.iconPath = new vscode.ThemeIcon('eye-closed');
    item.contextValue = ContextValue.Hidden;
    item.command = { command: Command.showHiddenMemories, title: 'Show Wrong and Archived' };
    item.accessibilityInformation = { label: `${n} hidden memories: ${parts}. Activate to show them.` };
    return item;
  }

  /** "Load more…" under a list longer than its loaded pages. */
  private moreItem(node: MoreNode): vscode.TreeItem {
    const page = this.pages.get(node.parent.id);
    const item = new vscode.TreeItem('Load more…', vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = page ? `${page.items.length} of ${page.total}` : undefined;
    item.iconPath = new vscode.ThemeIcon('ellipsis');
    item.contextValue = ContextValue.LoadMore;
    item.command = { command: Command.loadMore, title: 'Load More', arguments: [node] };
    item.accessibilityInformation = {
      label: `Load more memories${page ? `, ${page.items.length} of ${page.total} shown` : ''}`,
    };
    return item;
  }

  /** The active filter, first in the tree: Enter changes it, ✕ clears it. */
  private filterItem(node: FilterNode): vscode.TreeItem {
    const label = this._filter?.label ?? '';
    const item = new vscode.TreeItem(`Filtered: ${label}`, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.iconPath = new vscode.ThemeIcon('filter');
    item.tooltip = `Only memories matching "${label}" are listed. Enter changes the filter; ✕ (Clear Filter) lists everything again.`;
    item.contextValue = ContextValue.Filter;
    item.command = { command: Command.filterMemories, title: 'Filter Memories…' };
    item.accessibilityInformation = {
      label: `Filtered: ${label}. Activate to change the filter; Clear Filter lists everything.`,
    };
    return item;
  }

  /** A line that says why the tree is empty, or what to do first. */
  private infoItem(node: InfoNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.iconPath = new vscode.ThemeIcon('info');
    item.contextValue = ContextValue.Info;
    item.command = node.command;
    item.tooltip = node.detail ? `${node.message}. ${node.detail}` : node.message;
    item.accessibilityInformation = { label: item.tooltip };
    return item;
  }

  /** A memory's tooltip (its text and fields in words), built when the pointer rests on it. */
  resolveTreeItem(item: vscode.TreeItem, node: TreeNode): vscode.TreeItem {
    if (node.kind === 'memory') item.tooltip ??= tooltip(node.memory);
    return item;
  }

  getParent(node: TreeNode): TreeNode | undefined {
    if (node.kind === 'hidden') return node.parent;
    return node.kind === 'others' || node.kind === 'filter' ? undefined : node.parent;
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    // Down, or up without its store: no rows, so the welcome view (package.json viewsWelcome) says why, with actions.
    if (!this.ctx.isRunning || this.ctx.status?.health === 'error') return [];
    const key = node?.id ?? '';
    const cached = this.childCache.get(key);
    if (cached) return cached;
    const generation = this.generation;
    let children: TreeNode[];
    try {
      children = await this.loadChildren(node);
    } catch (err) {
      logFailure(this.ctx.log, `Loading memories`, err);
      return [
        this.info(
          node?.kind === 'project' ? node : undefined,
          'Could not load memories; see "Mnemo: Show Output".',
          {
            command: Command.showOutput,
            title: 'Show Output',
          },
        ),
      ];
    }
    if (generation === this.generation) this.childCache.set(key, children);
    return children;
  }

  private async loadChildren(node: TreeNode | undefined): Promise<TreeNode[]> {
    if (!node) return this.projectNodes();
    switch (node.kind) {
      case 'others':
        return this.otherProjectNodes();
      case 'project':
        return this._options.mode === 'recent' ? this.recentNodes(node) : this.categoryNodes(node);
      case 'category':
        return this.sourceNodes(node);
      case 'source':
        return this.memoryNodes(node);
      default:
        return [];
    }
  }

  private async projectNodes(): Promise<TreeNode[]> {
    const filterRow = this.intern<FilterNode>(FILTER_ID, () => ({ kind: 'filter', id: FILTER_ID }));
    if (this._filter?.projectId) {
      const node = this.projectNode(this._filter.projectId);
      node.parent = undefined;
      return [filterRow, node];
    }
    // A first run: no rows, so the view shows its welcome (package.json viewsWelcome, views/firstRun.ts).
    if (!this._filter && isEmptyWorkspace(await this.scope.ensure())) return [];
    const nodes: TreeNode[] = workspaceProjects().map((p) => {
      const node = this.projectNode(p.projectId);
      node.parent = undefined;
      return node;
    });
    if ((await this.otherProjectIds()).length) nodes.push(this.othersNode());
    return this._filter ? [filterRow, ...nodes] : nodes;
  }

  /** Projects outside the workspace: those the counts found, and those revealed or filtered to. */
  private async otherProjectIds(): Promise<string[]> {
    const inWorkspace = new Set(workspaceProjects().map((p) => p.projectId));
    const counted = (await this.scope.ensure())?.others.map((p) => p.projectId) ?? [];
    return [...new Set([...counted, ...this.extraProjects])].filter((id) => !inWorkspace.has(id));
  }

  private async otherProjectNodes(): Promise<TreeNode[]> {
    const others = this.othersNode();
    return (await this.otherProjectIds()).map((projectId) => {
      const node = this.projectNode(projectId);
      node.parent = others;
      return node;
    });
  }

  private othersNode(): OthersNode {
    return this.intern<OthersNode>(OTHERS_ID, () => ({ kind: 'others', id: OTHERS_ID }));
  }

  /** The statuses listed: the filter's, else the default ones (plus the hidden ones when shown). */
  private statuses(): MemoryStatus[] {
    return this._filter?.status ?? (this._options.showHidden ? ALL_STATUSES : TREE_STATUSES);
  }

  private baseParams(projectId: string): ListParams {
    const f = this._filter;
    return {
      project_id: projectId,
      include_global: false,
      status: this.statuses(),
      category: f?.category,
      source_type: f?.sourceType,
      since: f?.since ?? (f?.days ? daysAgoUtc(f.days) : undefined),
      is_actionable: f?.isActionable,
      max_confidence: f?.maxConfidence,
      min_confidence: f?.minConfidence,
      sort: this._options.sort,
    };
  }

  /**
   * The project's numbers under the filter: one counts request (over every status, so the hidden ones are
   * counted too), reused by every node below the project.
   */
  private projectCounts(projectId: string): Promise<TreeCounts & { hidden: [MemoryStatus, number][] }> {
    let counts = this.counts.get(projectId);
    if (!counts) {
      const { status: _status, sort: _sort, ...filter } = this.baseParams(projectId);
      const statuses = this.statuses();
      const explicit = this._filter?.status !== undefined;
      counts = this.ctx.request(CountsRequest, { ...filter, status: ALL_STATUSES }).then((r) => ({
        ...treeCounts(r.groups, statuses),
        hidden: explicit
          ? []
          : HIDDEN_STATUSES.filter((st) => !statuses.includes(st))
              .map((st): [MemoryStatus, number] => [
                st,
                r.groups.filter((g) => g.status === st).reduce((n, g) => n + g.count, 0),
              ])
              .filter(([, n]) => n > 0),
      }));
      const mine = counts;
      counts.catch(() => {
        if (this.counts.get(projectId) === mine) this.counts.delete(projectId);
      });
      this.counts.set(projectId, counts);
    }
    return counts;
  }

  private async categoryNodes(project: ProjectNode): Promise<TreeNode[]> {
    const counts = await this.projectCounts(project.projectId);
    const totals = CATEGORIES.map((category) => counts.byCategory.get(category) ?? 0);
    const nodes: TreeNode[] = [];
    CATEGORIES.forEach((category, i) => {
      const pinned = this.hasPinned(`${project.projectId}${SEP}${category}${SEP}`);
      if (totals[i] === 0 && !pinned) return;
      const node = this.categoryNode(project, category);
      node.total = totals[i];
      nodes.push(node);
    });
    const hidden = this.hiddenNode(project, counts.hidden);
    if (nodes.length === 0) {
      if (hidden) return [hidden];
      // Short labels: the side bar is narrow; the tooltip and the screen-reader label say the rest.
      return [
        this._filter
          ? this.info(project, 'No memories match the filter', CLEAR_FILTER, 'Clear Filter lists everything.')
          : project.projectId === GLOBAL_PROJECT
            ? this.info(
                project,
                'No global memories yet',
                undefined,
                'Promote a memory to Global to share it with every project.',
              )
            : this.info(
                project,
                'No memories yet',
                GET_STARTED,
                'Import your agents’ rules, remember selected text, or work in the terminal: Get Started shows how.',
              ),
      ];
    }
    if (hidden) nodes.push(hidden);
    return nodes;
  }

  /** Recent mode: the project's memories in one list (the chosen order, paged), then the hidden row. */
  private async recentNodes(project: ProjectNode): Promise<TreeNode[]> {
    const counts = await this.projectCounts(project.projectId);
    const nodes = await this.memoryNodes(project);
    const hidden = this.hiddenNode(project, counts.hidden);
    if (nodes.length === 0 && !hidden) {
      return [
        this._filter
          ? this.info(project, 'No memories match the filter', CLEAR_FILTER, 'Clear Filter lists everything.')
          : this.info(project, 'No memories yet', GET_STARTED, 'Get Started shows how Mnemo learns.'),
      ];
    }
    return hidden ? [...nodes, hidden] : nodes;
  }

  private hiddenNode(project: ProjectNode, byStatus: [MemoryStatus, number][]): HiddenNode | undefined {
    if (byStatus.length === 0) return undefined;
    const id = `h${SEP}${project.projectId}`;
    const node = this.intern<HiddenNode>(id, () => ({ kind: 'hidden', id, parent: project, byStatus }));
    node.byStatus = byStatus;
    node.parent = project;
    return node;
  }

  private async sourceNodes(category: CategoryNode): Promise<TreeNode[]> {
    const counts = (await this.projectCounts(category.parent.projectId)).bySource.get(category.category);
    const totals = SOURCE_TYPES.map((sourceType) => counts?.get(sourceType) ?? 0);
    const nodes: TreeNode[] = [];
    SOURCE_TYPES.forEach((sourceType, i) => {
      const id = this.sourceKey(category.parent.projectId, category.category, sourceType);
      if (totals[i] === 0 && !this.hasPinned(id.slice(2))) return;
      const node = this.sourceNode(category, sourceType);
      node.total = totals[i];
      nodes.push(node);
    });
    return nodes;
  }

  private async memoryNodes(source: ListNode): Promise<TreeNode[]> {
    let page = this.pages.get(source.id);
    if (!page || page.items.length === 0) {
      const pinned = page?.pinned ?? [];
      page = { ...(await this.fetchPage(source, 0)), pinned };
      this.pages.set(source.id, page);
    }
    return this.pageNodes(source, page);
  }

  private async fetchPage(source: ListNode, offset: number): Promise<{ items: Memory[]; total: number }> {
    const base = this.baseParams(
      source.kind === 'project' ? source.projectId : source.parent.parent.projectId,
    );
    const r = await this.ctx.request(ListRequest, {
      ...base,
      ...(source.kind === 'source'
        ? { category: source.parent.category, source_type: source.sourceType }
        : {}),
      limit: PAGE_SIZE,
      offset,
    });
    return { items: r.items, total: r.total };
  }

  private pageNodes(source: ListNode, page: Page): TreeNode[] {
    const seen = new Set(page.items.map((m) => m.id));
    const all = [...page.items, ...page.pinned.filter((m) => !seen.has(m.id))];
    const nodes: TreeNode[] = all.map((m) => this.memoryNode(source, m));
    if (page.items.length < page.total) nodes.push(this.moreNode(source));
    return nodes;
  }

  /** Loads the next page of a source node (the "Load more…" item). */
  async loadMore(node: MoreNode | ListNode): Promise<void> {
    const source = node.kind === 'more' ? node.parent : node;
    const page = this.pages.get(source.id);
    if (!page) {
      this.emitter.fire(source);
      return;
    }
    const next = await this.fetchPage(source, page.items.length);
    const seen = new Set(page.items.map((m) => m.id));
    page.items.push(...next.items.filter((m) => !seen.has(m.id)));
    page.total = next.total;
    this.childCache.delete(source.id);
    this.emitter.fire(source);
  }

  // ------------------------------------------------------------------ reveal

  private matchesFilter(m: Memory): boolean {
    const f = this._filter;
    if (!this.statuses().includes(m.status)) return false;
    if (!f) return true;
    if (f.projectId && f.projectId !== m.project_id) return false;
    if (f.category && f.category !== m.category) return false;
    if (f.sourceType && f.sourceType !== m.source_type) return false;
    if (f.isActionable !== undefined && f.isActionable !== m.is_actionable) return false;
    if (f.since && m.created_at < f.since) return false;
    if (f.days && m.created_at < daysAgoUtc(f.days)) return false;
    if (f.maxConfidence !== undefined && !(m.confidence_score < f.maxConfidence)) return false;
    if (f.minConfidence !== undefined && !(m.confidence_score > f.minConfidence)) return false;
    return true;
  }

  /**
   * The node of a memory with its parent chain, pinning the memory into its source node so that
   * TreeView.reveal finds it even when it is beyond the loaded pages. Clears a filter that hides it.
   */
  nodeForMemory(memory: Memory): MemoryNode {
    if (this._filter && !this.matchesFilter(memory)) this.setFilter(undefined);
    if (!this.matchesFilter(memory)) this.setOptions({ showHidden: true });
    const projectId = memory.project_id;
    const inWorkspace = workspaceProjects().some((p) => p.projectId === projectId);
    const project = this.projectNode(projectId);
    if (!inWorkspace && this._filter?.projectId !== projectId) {
      // Under "Other projects": make sure that node and this project are listed.
      project.parent = this.othersNode();
      if (!this.extraProjects.has(projectId)) {
        this.extraProjects.add(projectId);
        this.childCache.delete('');
        this.childCache.delete(OTHERS_ID);
        this.emitter.fire();
      }
    }
    const category = this.categoryNode(project, memory.category);
    const source: ListNode =
      this._options.mode === 'recent' ? project : this.sourceNode(category, memory.source_type);
    let page = this.pages.get(source.id);
    if (!page) {
      page = { items: [], total: 0, pinned: [] };
      this.pages.set(source.id, page);
    }
    if (!page.items.some((m) => m.id === memory.id) && !page.pinned.some((m) => m.id === memory.id)) {
      page.pinned.push(memory);
      // Rebuild the chain's children so the pinned memory (and its category/source) appear.
      this.childCache.delete(project.id);
      this.childCache.delete(category.id);
      this.childCache.delete(source.id);
      this.emitter.fire(project);
    }
    return this.memoryNode(source, memory);
  }

  private hasPinned(prefix: string): boolean {
    const projectPrefix = prefix;
    for (const [key, page] of this.pages)
      if (page.pinned.length && key.slice(2).startsWith(projectPrefix)) return true;
    return false;
  }

  // ------------------------------------------------------------------ registry

  private projectKey(projectId: string): string {
    return `p${SEP}${projectId}`;
  }
  private sourceKey(projectId: string, category: Category, sourceType: SourceType): string {
    return `s${SEP}${projectId}${SEP}${category}${SEP}${sourceType}`;
  }
  private memoryKey(id: string): string {
    return `m${SEP}${id}`;
  }

  projectNode(projectId: string): ProjectNode {
    const id = this.projectKey(projectId);
    let node = this.registry.get(id);
    if (!node) {
      node = { kind: 'project', id, projectId };
      this.registry.set(id, node);
    }
    return node as ProjectNode;
  }

  /** The registered node with this id, created by `make` the first time (nodes are stable for reveal). */
  private intern<T extends TreeNode>(id: string, make: () => T): T {
    let node = this.registry.get(id);
    if (!node) {
      node = make();
      this.registry.set(id, node);
    }
    return node as T;
  }

  private categoryNode(project: ProjectNode, category: Category): CategoryNode {
    const id = `c${SEP}${project.projectId}${SEP}${category}`;
    return this.intern<CategoryNode>(id, () => ({
      kind: 'category',
      id,
      parent: project,
      category,
      total: 0,
    }));
  }

  private sourceNode(category: CategoryNode, sourceType: SourceType): SourceNode {
    const id = this.sourceKey(category.parent.projectId, category.category, sourceType);
    return this.intern<SourceNode>(id, () => ({
      kind: 'source',
      id,
      parent: category,
      sourceType,
      total: 0,
    }));
  }

  private memoryNode(source: ListNode, memory: Memory): MemoryNode {
    const id = this.memoryKey(memory.id);
    const node = this.registry.get(id);
    if (node?.kind === 'memory' && node.parent === source) {
      node.memory = memory;
      return node;
    }
    const fresh: MemoryNode = { kind: 'memory', id, parent: source, memory };
    this.registry.set(id, fresh);
    return fresh;
  }

  private moreNode(source: ListNode): MoreNode {
    const id = `more${SEP}${source.id}`;
    let node = this.registry.get(id);
    if (!node) {
      node = { kind: 'more', id, parent: source };
      this.registry.set(id, node);
    }
    return node as MoreNode;
  }

  private info(
    parent: ProjectNode | undefined,
    message: string,
    command?: vscode.Command,
    detail?: string,
  ): InfoNode {
    return {
      kind: 'info',
      id: `i${SEP}${parent?.projectId ?? ''}${SEP}${message}`,
      parent,
      message,
      command,
      detail,
    };
  }

  /** Memories currently loaded for a project (tests and the digest use it; no request). */
  loadedMemories(projectId?: string): Memory[] {
    const out: Memory[] = [];
    for (const node of this.registry.values()) {
      if (node.kind === 'memory' && (!projectId || node.memory.project_id === projectId))
        out.push(node.memory);
    }
    return out;
  }
}
