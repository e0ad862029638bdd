/**
 * The first run: what the Memories view's welcome (package.json `viewsWelcome`) offers while the
 * workspace's projects hold no memory yet — importing the agent rules found in its folders, connecting an
 * agent, bringing a chat export or a backup — kept true as context keys while files and counts change.
 */
import * as vscode from 'vscode';
import { discoverRuleSources, RULE_FILES } from '../../sidecar/shared/ruleSources';
import { BuiltinCommand } from '../commandIds';
import { projectIdOfPath } from '../projects';
import { ContextKey } from '../shared/contextValues';
import { isEmptyWorkspace } from './counts';
import type { WorkspaceCounts } from './workspaceCounts';

/** The rule files of a folder the import reads (sidecar/shared/ruleSources.ts), as one glob for a file watcher. */
const RULES_GLOB = `{${[...RULE_FILES, '.cursor/rules/*'].join(',')}}`;

export class FirstRun implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private watchers: vscode.Disposable[] = [];
  /** Whether a workspace folder has agent rules to import (tests read it). */
  rulesFound = false;

  constructor(counts: WorkspaceCounts) {
    this.disposables.push(
      counts.onDidChange((c) => {
        set(ContextKey.WorkspaceEmpty, isEmptyWorkspace(c));
        set(ContextKey.HasOtherProjects, (c?.others.length ?? 0) > 0);
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.watch()),
    );
    this.watch();
  }

  dispose(): void {
    for (const d of [...this.watchers, ...this.disposables]) d.dispose();
  }

  private watch(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => {
        const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(f, RULES_GLOB));
        w.onDidCreate(() => this.look());
        w.onDidDelete(() => this.look());
        return w;
      });
    this.look();
  }

  private look(): void {
    this.rulesFound = (vscode.workspace.workspaceFolders ?? []).some(
      (f) =>
        f.uri.scheme === 'file' &&
        discoverRuleSources({ projectDir: f.uri.fsPath, projectId: projectIdOfPath(f.uri.fsPath) }).length >
          0,
    );
    set(ContextKey.RulesFound, this.rulesFound);
  }
}

function set(key: ContextKey, value: unknown): void {
  void vscode.commands.executeCommand(BuiltinCommand.setContext, key, value);
}
