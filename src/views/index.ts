/** Creates the views (extension lifetime) and wires them to the context's events. */
import * as vscode from 'vscode';
import { ViewId } from '../commandIds';
import type { Ctx } from '../ctx';
import { ContextKey } from './contextValues';
import { Dashboard } from './dashboard';
import { DailyDigest } from './digest';
import { DOC_SCHEME, MnemoDocuments } from './documents';
import { MemoryTreeProvider, type TreeFilter, type TreeNode } from './memoryTree';
import { checkNotices } from './notices';
import { MemoryDecorations } from './present';
import { ReviewTreeProvider, type ReviewNode } from './reviewTree';
import { StatusBar } from './statusBar';

export interface Views {
  memories: MemoryTreeProvider;
  memoriesView: vscode.TreeView<TreeNode>;
  review: ReviewTreeProvider;
  reviewView: vscode.TreeView<ReviewNode>;
  dashboard: Dashboard;
  documents: MnemoDocuments;
  statusBar: StatusBar;
  digest: DailyDigest;
  /** Refresh every view (after a restart, a time zone change, a NotFound error). */
  refreshAll(): void;
  setFilter(filter: TreeFilter | undefined): void;
}

export function createViews(ctx: Ctx): Views {
  const memories = new MemoryTreeProvider(ctx);
  const memoriesView = vscode.window.createTreeView(ViewId.memories, {
    treeDataProvider: memories,
    showCollapseAll: true,
    canSelectMany: true,
  });
  const review = new ReviewTreeProvider(ctx);
  const reviewView = vscode.window.createTreeView(ViewId.review, { treeDataProvider: review, canSelectMany: true });
  const documents = new MnemoDocuments(ctx);
  const statusBar = new StatusBar(ctx);
  const digest = new DailyDigest(ctx, (limit) => review.pending(limit));

  const setFilter = (filter: TreeFilter | undefined): void => memories.setFilter(filter);
  const dashboard = new Dashboard(ctx, setFilter);

  const refreshAll = (): void => {
    memories.refreshAll();
    review.refresh();
    void dashboard.refresh();
  };

  ctx.pushExtension(
    memories,
    memoriesView,
    review,
    reviewView,
    documents,
    statusBar,
    dashboard,
    vscode.window.registerFileDecorationProvider(new MemoryDecorations()),
    vscode.workspace.registerTextDocumentContentProvider(DOC_SCHEME, documents),
    memories.onDidChangeFilter((filter) => {
      memoriesView.description = filter ? `Filter: ${filter.label}` : undefined;
      void vscode.commands.executeCommand('setContext', ContextKey.FilterActive, filter !== undefined);
    }),
    review.onDidChangeCount((n) => {
      reviewView.badge = n > 0 ? { value: n, tooltip: `${n} memories wait for review` } : undefined;
      reviewView.message = n > 0 ? `${n} pending — select one or many, then confirm or reject.` : undefined;
    }),
    ctx.onDidChangeMemories((p) => {
      if (p.projectIds.length) memories.refreshProjects(p.projectIds);
      else memories.refreshAll();
      review.refresh();
    }),
    ctx.onDidChangeState((state) => {
      memories.refreshAll();
      review.refresh();
      if (state === 'running') {
        void digest.maybeShow();
        void checkNotices(ctx);
      }
    }),
    ctx.onDidChangeStatus((s) => {
      if (s.pendingCount) void digest.maybeShow();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => refreshAll()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('mnemo.display.timeZone')) refreshAll();
    }),
  );
  void vscode.commands.executeCommand('setContext', ContextKey.FilterActive, false);

  return { memories, memoriesView, review, reviewView, dashboard, documents, statusBar, digest, refreshAll, setFilter };
}
