/**
 * The file changes Mnemo proposes (agent configuration, the instruction-file pointer, promoted memories),
 * shown together in one changes editor — every file of the change side by side, nothing modal over it —
 * with **Write** and **Cancel** in its title (Ctrl+Enter writes, closing the tab cancels), like VS Code's
 * Refactor Preview. The title says which files git tracks (the change is then the team's to review). The
 * tab is closed once decided; a file that changed after the preview is refused rather than overwritten.
 * Writing keeps the previous file as a backup (sidecar/shared/fileChange.ts applyChange). Used by Connect an
 * Agent and Promote to Repository.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { applyChange, readIfExists, type FileChange } from '../../sidecar/shared/fileChange';
import { BuiltinCommand, Command } from '../commandIds';
import type { Ctx } from '../ctx';
import { UserError } from '../errors';
import { ContextKey } from '../shared/contextValues';

const SCHEME = 'mnemo-proposed';
const contents = new Map<string, string>();

interface Proposal {
  what: string;
  /** The changes editor's title, which is its tab's label. */
  title: string;
  changes: FileChange[];
  /** The proposed ("after") sides: how the changes editor's tab is recognised. */
  uris: Set<string>;
  /** Both sides' contents, dropped once decided. */
  keys: string[];
  resolve: (written: boolean) => void;
}

let current: Proposal | undefined;

function proposedUri(file: string, side: 'before' | 'after', stamp: number): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: file, query: `${side}-${stamp}` });
}

/** The diffs a tab shows: a changes editor's (its input has `textDiffs`), a diff editor's, else none. */
function diffsOf(tab: vscode.Tab): { modified: vscode.Uri }[] {
  const input: unknown = tab.input;
  if (input instanceof vscode.TabInputTextDiff) return [input];
  const many = (input as { textDiffs?: unknown } | undefined)?.textDiffs;
  return Array.isArray(many) ? (many as { modified: vscode.Uri }[]) : [];
}

/**
 * Whether `tab` shows the proposal. A changes editor resolves its files after its tab opens (its
 * `textDiffs` are empty at first), so its label — the proposal's title — identifies it as well.
 */
function showsProposal(tab: vscode.Tab, p: Proposal): boolean {
  const diffs = diffsOf(tab);
  if (diffs.some((d) => p.uris.has(d.modified.toString()))) return true;
  return diffs.length === 0 && tab.label === p.title && !(tab.input instanceof vscode.TabInputText);
}

/** The open tab showing the proposal, if any. */
function proposalTab(p: Proposal | undefined): vscode.Tab | undefined {
  if (!p) return undefined;
  for (const group of vscode.window.tabGroups.all)
    for (const tab of group.tabs) if (showsProposal(tab, p)) return tab;
  return undefined;
}

function setFocused(): void {
  const active = vscode.window.tabGroups.activeTabGroup.activeTab;
  const ours = active !== undefined && active === proposalTab(current);
  void vscode.commands.executeCommand(BuiltinCommand.setContext, ContextKey.ProposalFocused, ours);
}

/** Ends the proposal: its tab is closed, the waiting command hears whether it was written. */
async function settle(written: boolean): Promise<void> {
  const p = current;
  if (!p) return;
  current = undefined;
  const tab = proposalTab(p);
  if (tab) await vscode.window.tabGroups.close(tab).then(undefined, () => false);
  for (const k of p.keys) contents.delete(k);
  setFocused();
  p.resolve(written);
}

/** The files git tracks, of those given (none when git or the repository is not there). */
async function trackedByGit(files: string[]): Promise<string[]> {
  const tracked = await Promise.all(
    files.map(
      (f) =>
        new Promise<boolean>((resolve) => {
          execFile(
            'git',
            ['ls-files', '--error-unmatch', '--', path.basename(f)],
            { cwd: path.dirname(f), timeout: 5000 },
            (err) => resolve(!err),
          );
        }),
    ),
  );
  return files.filter((_, i) => tracked[i]);
}

/** Registers the provider of the proposed contents and the Write / Cancel commands (at activation). */
export function register(ctx: Ctx): void {
  ctx.pushExtension(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      provideTextDocumentContent: (uri) => contents.get(uri.toString()) ?? '',
    }),
    vscode.window.tabGroups.onDidChangeTabs((e) => {
      // The tab was closed by hand: that is a Cancel.
      const p = current;
      if (p && e.closed.some((t) => showsProposal(t, p)) && !proposalTab(p)) void settle(false);
      setFocused();
    }),
    vscode.window.tabGroups.onDidChangeTabGroups(() => setFocused()),
  );
  ctx.registerCommand(Command.writeProposedChanges, async () => {
    const p = current;
    if (!p) return false;
    const moved = p.changes.filter((c) => readIfExists(c.file) !== c.before);
    if (moved.length) {
      await settle(false);
      throw new UserError(
        `${moved.map((c) => vscode.workspace.asRelativePath(c.file)).join(', ')} changed after the preview; nothing was written. Run ${p.what} again to see the change against it.`,
      );
    }
    for (const c of p.changes) applyChange(c);
    ctx.log.info(`${p.what}: wrote ${p.changes.map((c) => c.file).join(', ')}`);
    await settle(true);
    return true;
  });
  ctx.registerCommand(Command.cancelProposedChanges, () => settle(false));
}

/**
 * Shows the changes in one changes editor; resolves true once the user chose Write (and they were
 * written), false on Cancel or when the tab was closed. A new proposal cancels one still open.
 */
export async function proposeChanges(ctx: Ctx, changes: FileChange[], what: string): Promise<boolean> {
  const pending = changes.filter((c) => c.changed);
  if (pending.length === 0) {
    void vscode.window.showInformationMessage(`${what}: already up to date.`);
    return false;
  }
  await settle(false);
  const stamp = Date.now();
  const resources = pending.map((c) => {
    const left = proposedUri(c.file, 'before', stamp);
    const right = proposedUri(c.file, 'after', stamp);
    contents.set(left.toString(), c.before ?? '');
    contents.set(right.toString(), c.after ?? '');
    return [vscode.Uri.file(c.file), left, right] as const;
  });
  const tracked = (await trackedByGit(pending.map((c) => c.file))).map((f) =>
    vscode.workspace.asRelativePath(f),
  );
  const files =
    pending.length === 1 ? vscode.workspace.asRelativePath(pending[0]!.file) : `${pending.length} files`;
  const title = `${what}: write ${files}?${tracked.length ? ` (${tracked.join(', ')} ${tracked.length === 1 ? 'is' : 'are'} tracked by git: commit to share)` : ''}`;
  const decided = new Promise<boolean>((resolve) => {
    current = {
      what,
      title,
      changes: pending,
      uris: new Set(resources.map(([, , r]) => r.toString())),
      keys: resources.flatMap(([, l, r]) => [l.toString(), r.toString()]),
      resolve,
    };
  });
  await vscode.commands.executeCommand(BuiltinCommand.changes, title, resources);
  setFocused();
  vscode.window.setStatusBarMessage(
    `$(diff) ${what}: review the changes, then Write (Ctrl+Enter) or Cancel in the editor's title`,
    decided,
  );
  // What the change keeps of the person's own file (their env, a symlink, comments): said beside the preview.
  const notes = pending.flatMap((c) =>
    (c.notes ?? []).map((n) => `${vscode.workspace.asRelativePath(c.file)}: ${n}`),
  );
  if (notes.length) void vscode.window.showInformationMessage(`${what}: ${notes.join(' · ')}`);
  ctx.log.info(`${what}: proposed ${pending.map((c) => c.file).join(', ')}`);
  return decided;
}
