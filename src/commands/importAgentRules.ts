/**
 * "Mnemo: Import Agent Rules…" (`mnemo.importAgentRules`): the rules agents and teams already wrote —
 * AGENTS.md, CLAUDE.md, .github/copilot-instructions.md, .cursorrules, .cursor/rules/* of every workspace
 * folder, and VS Code's own agent memory files (repository memory of this workspace; user memory, which
 * becomes global, when asked) — become memories with `file:<path>#L<line>` provenance, through the same
 * pipeline as `mnemo import-rules`: the editor finds the files (sidecar/shared/ruleSources.ts) and the sidecar
 * reads and stores them (`mnemo/rules/import`, sidecar/agents/rulesImport.ts). They wait in the Review Queue, grouped by
 * file, until a person confirms them. Importing again stores nothing twice.
 */
import { Command } from '../commandIds';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { RulesImportRequest, type RuleSource, type RulesImportResult } from '../../sidecar/protocol';
import { discoverRuleSources } from '../../sidecar/shared/ruleSources';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import { UserError } from '../errors';
import { projectIdOfPath } from '../projects';

/** VS Code's agent memory folders (the Copilot Chat memory tool), next to this extension's storage. */
function memoryFolders(ctx: Ctx): { repo?: string; user?: string } {
  const repo = ctx.extension.storageUri
    ? path.join(
        path.dirname(ctx.extension.storageUri.fsPath),
        'GitHub.copilot-chat',
        'memory-tool',
        'memories',
        'repo',
      )
    : undefined;
  const user = path.join(
    path.dirname(ctx.extension.globalStorageUri.fsPath),
    'github.copilot-chat',
    'memory-tool',
    'memories',
  );
  return { repo: repo && existsSync(repo) ? repo : undefined, user: existsSync(user) ? user : undefined };
}

export function summary(r: RulesImportResult): string {
  const notRead = r.refused_files.length ? `; ${r.refused_files.length} not read` : '';
  return `${r.pending} waiting for review in the Review Queue, grouped by file (an import is not a confirmation), ${r.refreshed} refreshed, ${r.unchanged} already imported, ${r.refused} not rules (from ${r.files.length} file${r.files.length === 1 ? '' : 's'}${notRead}).`;
}

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.importAgentRules, async () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length === 0)
      throw new UserError(
        'Open a project folder first: its AGENTS.md, CLAUDE.md and other rule files are imported into its memory.',
      );
    const mem = memoryFolders(ctx);
    const sources: RuleSource[] = [];
    folders.forEach((f, i) =>
      sources.push(
        ...discoverRuleSources({
          projectDir: f.uri.fsPath,
          projectId: projectIdOfPath(f.uri.fsPath),
          repoMemoryDir: i === 0 ? mem.repo : undefined,
        }),
      ),
    );
    if (mem.user) {
      const pick = await vscode.window.showQuickPick(
        [
          { label: 'Project rules and this workspace’s memory', user: false },
          {
            label: 'Also my VS Code user memory',
            description: 'becomes global: recalled in every project',
            user: true,
          },
        ],
        { placeHolder: 'Import which agent rules?' },
      );
      if (!pick) return;
      if (pick.user)
        sources.push(
          ...discoverRuleSources({
            projectDir: folders[0]!.uri.fsPath,
            projectId: projectIdOfPath(folders[0]!.uri.fsPath),
            userMemoryDir: mem.user,
          }).filter((s) => s.file.startsWith(mem.user!)),
        );
    }
    if (sources.length === 0)
      throw new UserError(
        'No AGENTS.md, CLAUDE.md, .github/copilot-instructions.md, .cursorrules, .cursor/rules or VS Code memory files were found in this workspace.',
      );
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Importing agent rules into Mnemo…' },
      // The sidecar reads, gates, redacts and stores; the editor only says which files.
      () => ctx.request(RulesImportRequest, { sources, by: currentUser() }),
    );
    ctx.log.info(`Import agent rules: ${summary(report)}`);
    for (const f of report.refused_files) ctx.log.info(`  not read: ${f.file} (${f.reason})`);
    for (const i of report.items)
      if (i.outcome !== 'unchanged')
        ctx.log.info(
          `  ${i.outcome} ${i.source_ref} ${i.text}${i.outcome === 'refused' ? ` (${i.reason})` : ''}`,
        );
    // The next step that gives value at once: agents outside VS Code recall them once connected.
    void vscode.window
      .showInformationMessage(`Imported agent rules: ${summary(report)}`, 'Connect an Agent…', 'Show Details')
      .then((c) => {
        if (c === 'Connect an Agent…') void vscode.commands.executeCommand(Command.connectAgent);
        else if (c === 'Show Details') ctx.log.show();
      });
    return report;
  });
}
