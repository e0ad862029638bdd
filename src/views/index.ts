/**
 * Creates the views (extension lifetime). Data flows one way: the views subscribe to the context's
 * events (`onDidChangeMemories` — the sidecar's `mnemo/memories/changed`, or a refresh a person asked
 * for — and the sidecar's state) and reload themselves; commands change memories through the sidecar and
 * never refresh a view by hand. The context does not hold the views: activate() hands them to the few
 * commands that act on them (reveal, selection, filter, load more, dashboard).
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { BuiltinCommand, ViewId } from '../commandIds';
import type { CapturePause } from '../shared/pause';
import type { Ctx, MemoriesChange } from '../ctx';
import { ContextKey } from '../shared/contextValues';
import { Dashboard } from './dashboard';
import { DailyDigest } from './digest';
import { DOC_SCHEME, MnemoDocuments } from './documents';
import { MemoryDetails } from './details';
import { EditForms } from './editForm';
import { FirstRun } from './firstRun';
import { LedgerTreeProvider, type LedgerNode } from './ledgerTree';
import { MemoryTreeProvider, SORT_LABEL, type TreeFilter, type TreeNode } from './memoryTree';
import { checkNotices } from './notices';
import { MemoryDecorations } from './present';
import { RefreshGate } from './refreshGate';
import { revealMemory } from './reveal';
import { ReviewTreeProvider, type ReviewNode } from './reviewTree';
import { SourcesTreeProvider, type AgentSessionList, type SourceNode } from './sourcesTree';
import { StatusBar } from './statusBar';
import { WorkspaceCounts } from './workspaceCounts';

/** Changes within this window are applied as one reload (a clean archives many memories one by one). */
const COALESCE_MS = 50;
/**
 * Reloads are at least this far apart: the sidecar announces a change per learned session (hundreds after an
 * Import Chat), and each reload re-lists the visible trees and the counts (refreshGate.ts).
 */
const MIN_RELOAD_INTERVAL_MS = 1000;
/** Visible views re-render this often, so that relative ages ("2 minutes ago") stay true. */
const REPAINT_MS = 60_000;

export interface Views {
  memories: MemoryTreeProvider;
  memoriesView: vscode.TreeView<TreeNode>;
  review: ReviewTreeProvider;
  reviewView: vscode.TreeView<ReviewNode>;
  /** "What My Agents Saw": the recalls served to agents and people. */
  ledger: LedgerTreeProvider;
  ledgerView: vscode.TreeView<LedgerNode>;
  dashboard: Dashboard;
  documents: MnemoDocuments;
  /** A memory's details, the tab a person acts from. */
  details: MemoryDetails;
  statusBar: StatusBar;
  /** Pause / Resume of terminal, chat and agent capture. */
  pause: CapturePause;
  sources: SourcesTreeProvider;
  sourcesView: vscode.TreeView<SourceNode>;
  digest: DailyDigest;
  /** The edit forms (one webview tab per memory being edited). */
  editForms: EditForms;
  /** The workspace-scoped numbers shared by the status bar, the Review Queue badge, the digest and "Other projects". */
  counts: WorkspaceCounts;
  setFilter(filter: TreeFilter | undefined): void;
  /** Shows a memory in the Memories tree: focus the view, pin the memory into its subtree, reveal. */
  reveal(memory: Memory): Promise<void>;
  /** The memories selected in the Memories and Review views (or in the one view given). */
  selectedMemories(viewId?: string): Memory[];
}

export function createViews(ctx: Ctx, pause: CapturePause, agents: AgentSessionList): Views {
  const counts = new WorkspaceCounts(ctx);
  const memories = new MemoryTreeProvider(ctx, counts, ctx.extension.workspaceState);
  const memoriesView = vscode.window.createTreeView(ViewId.memories, {
    treeDataProvider: memories,
    showCollapseAll: true,
    canSelectMany: true,
  });
  const review = new ReviewTreeProvider(ctx, ctx.extension.workspaceState);
  const reviewView = vscode.window.createTreeView(ViewId.review, {
    treeDataProvider: review,
    canSelectMany: true,
  });
  reviewView.description = review.groupingLabel;
  const sources = new SourcesTreeProvider(ctx, agents, pause);
  const sourcesView = vscode.window.createTreeView(ViewId.sources, { treeDataProvider: sources });
  const ledger = new LedgerTreeProvider(ctx);
  const ledgerView = vscode.window.createTreeView(ViewId.ledger, { treeDataProvider: ledger });
  const documents = new MnemoDocuments(ctx);
  const details = new MemoryDetails(ctx);
  const statusBar = new StatusBar(ctx, counts, pause);
  const editForms = new EditForms(ctx, statusBar);
  const digest = new DailyDigest(ctx, counts, (limit) => review.pending(limit));

  const setFilter = (filter: TreeFilter | undefined): void => memories.setFilter(filter);
  const dashboard = new Dashboard(ctx, setFilter);

  // The one reload path.
  let lastHealth: string | undefined;
  const gate = reloadGate({ memories, review, ledger, documents, details, counts });
  const onChange = (change: MemoriesChange): void => gate.request(change.projectIds);

  const showOptions = (): void => showTreeOptions(memories, memoriesView);

  const reveal = (memory: Memory): Promise<void> => revealMemory(ctx, gate, memories, memoriesView, memory);

  const selectedMemories = (viewId?: string): Memory[] =>
    [
      ...(viewId === undefined || viewId === ViewId.memories ? memoriesView.selection : []),
      ...(viewId === undefined || viewId === ViewId.review ? reviewView.selection : []),
    ].flatMap((n) => (n.kind === 'memory' || n.kind === 'review' ? [n.memory] : []));

  ctx.pushExtension(
    counts,
    new FirstRun(counts),
    memories,
    memoriesView,
    review,
    reviewView,
    sources,
    sourcesView,
    sourcesView.onDidChangeVisibility((e) => e.visible && sources.shown()),
    review.onDidChangeTreeData(() => (reviewView.description = review.groupingLabel)),
    ledger,
    ledgerView,
    documents,
    details,
    statusBar,
    dashboard,
    digest,
    editForms,
    gate,
    repaintWhileVisible([
      [memoriesView, memories],
      [reviewView, review],
      [ledgerView, ledger],
    ]),
    vscode.window.registerFileDecorationProvider(new MemoryDecorations()),
    vscode.workspace.registerTextDocumentContentProvider(DOC_SCHEME, documents),
    memories.onDidChangeFilter(() => showOptions()),
    memories.onDidChangeOptions(() => showOptions()),
    counts.onDidChange((c) => showPending(reviewView, digest, c?.pending ?? 0)),
    ctx.onDidChangeMemories(onChange),
    // Something was served (by this window, an agent's MCP server, the CLI): only this view changes.
    ctx.onDidChangeLedger(() => ledger.refresh()),
    ctx.onDidChangeStatus((s) => {
      void vscode.commands.executeCommand(BuiltinCommand.setContext, ContextKey.StoreHealth, s.health);
      // The store came back or went away: the views switch between their rows and the welcome view.
      if ((s.health === 'error') !== (lastHealth === 'error')) onChange({});
      lastHealth = s.health;
    }),
    ctx.onDidChangeState((state) => {
      onChange({});
      if (state === 'running') void checkNotices(ctx);
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => onChange({})),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('mnemo.display.timeZone')) onChange({});
    }),
  );
  showOptions();
  void vscode.commands.executeCommand(BuiltinCommand.setContext, ContextKey.StoreHealth, 'unknown');

  return {
    memories,
    memoriesView,
    review,
    reviewView,
    ledger,
    ledgerView,
    dashboard,
    documents,
    details,
    statusBar,
    pause,
    sources,
    sourcesView,
    digest,
    editForms,
    counts,
    setFilter,
    reveal,
    selectedMemories,
  };
}

/** One reload of everything a change of memories touches, coalesced and spaced (refreshGate.ts). */
function reloadGate(v: {
  memories: MemoryTreeProvider;
  review: ReviewTreeProvider;
  ledger: LedgerTreeProvider;
  documents: MnemoDocuments;
  details: MemoryDetails;
  counts: WorkspaceCounts;
}): RefreshGate {
  return new RefreshGate(
    (what) => {
      if (what === 'all') v.memories.refreshAll();
      else v.memories.refreshProjects([...what]);
      v.review.refresh();
      v.ledger.refresh(); // a delete or a wipe erases from the ledger; the items' texts change
      v.documents.refreshOpen();
      v.details.refresh();
      void v.counts.reload();
    },
    COALESCE_MS,
    MIN_RELOAD_INTERVAL_MS,
  );
}

/** The Memories view's description and context keys follow the tree's mode, order and filter. */
function showTreeOptions(memories: MemoryTreeProvider, memoriesView: vscode.TreeView<TreeNode>): void {
  const { mode, sort, showHidden } = memories.options;
  const filter = memories.filter;
  memoriesView.description =
    [
      mode === 'recent' ? 'Recent' : '',
      sort === 'newest' ? '' : SORT_LABEL[sort],
      // The filter is said by the tree's first row ("Filtered: …"): a long description here would
      // squeeze the view's title to "MEM…" at the side bar's default width.
      filter ? 'filtered' : '',
      showHidden && !filter?.status ? 'with wrong and archived' : '',
    ]
      .filter(Boolean)
      .join(' · ') || undefined;
  const set = (key: ContextKey, value: unknown) =>
    void vscode.commands.executeCommand(BuiltinCommand.setContext, key, value);
  set(ContextKey.FilterActive, filter !== undefined);
  set(ContextKey.TreeMode, mode);
  set(ContextKey.ShowHidden, showHidden);
}

/** The Review Queue's badge and the status bar show the same number: pending memories of the workspace's projects. */
function showPending(reviewView: vscode.TreeView<ReviewNode>, digest: DailyDigest, n: number): void {
  reviewView.badge =
    n > 0 ? { value: n, tooltip: `${n} memories of this workspace's projects wait for review` } : undefined;
  reviewView.message =
    n > 0
      ? `${n} pending — Ctrl+Enter confirms the outlined one, Shift+Delete rejects it (or all of a selection).`
      : undefined;
  if (n > 0) void digest.maybeShow();
}

/** Visible views re-render every {@link REPAINT_MS}, so that relative ages ("2 minutes ago") stay true. */
function repaintWhileVisible(views: [vscode.TreeView<unknown>, { repaint(): void }][]): vscode.Disposable {
  const timer = setInterval(() => {
    for (const [view, provider] of views) if (view.visible) provider.repaint();
  }, REPAINT_MS);
  return { dispose: () => clearInterval(timer) };
}
