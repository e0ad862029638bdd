/**
 * `mnemo.exportBackup` (one click from the view's toolbar) and `mnemo.importBackup`: AES-256 encrypted ZIP
 * backups written and read by the sidecar, with progress and cancel. The password is asked twice and is
 * kept in the OS keychain (SecretStorage) only when the user says so — scheduled backups need it.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BackupExportRequest, BackupImportRequest, BackupInspectRequest } from '../../sidecar/protocol';
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../sidecar/shared/backupPassword';
import { SECRETS, config } from '../config';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { projectLabel, workspaceProjects } from '../projects';
import { formatLocalWithUtc } from '../time';
import { BuiltinCommand, Command } from '../commandIds';

async function askPassword(title: string, confirm: boolean): Promise<string | undefined> {
  const password = await vscode.window.showInputBox({
    title,
    prompt: `Backup password (at least ${MIN_PASSWORD} characters). Only you hold it: without it the backup cannot be opened.`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.length < MIN_PASSWORD ? `At least ${MIN_PASSWORD} characters.` : undefined),
  });
  if (!password || !confirm) return password;
  const again = await vscode.window.showInputBox({
    title,
    prompt: 'Type the password again.',
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v !== password ? 'The passwords differ.' : undefined),
  });
  return again === password ? password : undefined;
}

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.exportBackup, async () => {
    const projects = workspaceProjects();
    const scope = await vscode.window.showQuickPick(
      [
        {
          label: 'All projects',
          description: 'every memory in the store, with the audit log',
          projectId: undefined as string | undefined,
        },
        ...projects.map((p) => ({
          label: projectLabel(p.projectId),
          description: p.projectId,
          projectId: p.projectId as string | undefined,
        })),
      ],
      { title: 'Mnemo: Back Up Memories', placeHolder: 'What to back up' },
    );
    if (!scope) return undefined;
    const saved = await ctx.extension.secrets.get(SECRETS.backupPassword);
    let password = saved;
    if (saved) {
      const use = await vscode.window.showQuickPick(
        ['Use the saved backup password', 'Type another password'],
        { title: 'Mnemo: Back Up Memories' },
      );
      if (!use) return undefined;
      if (use !== 'Use the saved backup password') password = undefined;
    }
    password ??= await askPassword('Mnemo: Back Up Memories', true);
    if (!password) return undefined;
    const defaultFolder = config.backup.folder() || path.join(os.homedir(), 'Documents');
    const folder = await vscode.window.showOpenDialog({
      title: 'Folder for the backup',
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      defaultUri: vscode.Uri.file(defaultFolder),
      openLabel: 'Back Up Here',
    });
    if (!folder?.[0]) return undefined;
    const r = await ctx.requestWithProgress(
      BackupExportRequest,
      { out: folder[0].fsPath, password, project_id: scope.projectId },
      'Mnemo: backing up memories',
    );
    if (!saved || saved !== password) {
      const keep = await vscode.window.showInformationMessage(
        `Mnemo: backed up ${r.counts.memories} memories to ${path.basename(r.file)} (AES-256).`,
        'Save Password for Scheduled Backups',
        'Reveal',
      );
      if (keep === 'Save Password for Scheduled Backups')
        await ctx.extension.secrets.store(SECRETS.backupPassword, password);
      if (keep === 'Reveal')
        void vscode.commands.executeCommand(BuiltinCommand.revealFileInOS, vscode.Uri.file(r.file));
    } else {
      views.statusBar.flash(`Backed up ${r.counts.memories} memories to ${r.file} (AES-256)`);
    }
    return r;
  });

  ctx.registerCommand(Command.importBackup, async (fileArg?: vscode.Uri) => {
    const file =
      fileArg ??
      (
        await vscode.window.showOpenDialog({
          title: 'Mnemo: Restore From Backup',
          canSelectMany: false,
          filters: { 'Mnemo backup': ['zip'] },
          defaultUri: config.backup.folder() ? vscode.Uri.file(config.backup.folder()) : undefined,
          openLabel: 'Restore',
        })
      )?.[0];
    if (!file) return undefined;
    const password = await askPassword('Mnemo: Restore From Backup', false);
    if (!password) return undefined;
    const preview = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Mnemo: checking the backup…' },
      () => ctx.request(BackupInspectRequest, { file: file.fsPath, password }),
    );
    const differ = preview.conflicts.filter((c) => c.differs).length;
    const summary =
      `${preview.counts.memories} memories of ${preview.projects.map(projectLabel).join(', ') || 'no project'}, ` +
      `made ${formatLocalWithUtc(preview.created_at, config.display.timeZone())} by ${preview.created_by}. ` +
      `${preview.conflicts.length} already stored (${differ} differ).` +
      (preview.needs_reembed ? ' Texts will be re-embedded with the current model.' : '');
    const mode = await vscode.window.showQuickPick(
      [
        { label: 'Skip existing', description: 'keep what is stored; add the rest', mode: 'skip' as const },
        {
          label: 'Overwrite',
          description: 'the backup wins for memories stored in both',
          mode: 'overwrite' as const,
        },
        {
          label: 'Import as a new project',
          description: 'keep them apart under another project id',
          mode: 'new-project' as const,
        },
      ],
      { title: 'Mnemo: Restore From Backup', placeHolder: summary, ignoreFocusOut: true },
    );
    if (!mode) return undefined;
    let newProjectId: string | undefined;
    if (mode.mode === 'new-project') {
      newProjectId = await vscode.window.showInputBox({
        title: 'Mnemo: Restore From Backup',
        prompt: 'Project id for the imported memories',
        value: `${preview.projects[0] ?? 'restored'}-restored`,
        validateInput: (v) => (v.trim() ? undefined : 'A project id is required.'),
      });
      if (!newProjectId) return undefined;
    }
    const r = await ctx.requestWithProgress(
      BackupImportRequest,
      { file: file.fsPath, password, mode: mode.mode, new_project_id: newProjectId?.trim() },
      'Mnemo: restoring memories',
    );
    views.statusBar.flash(
      `Restored ${r.inserted} new and ${r.overwritten} replaced memories (${r.skipped} kept as stored${r.reembedded ? `, ${r.reembedded} re-embedded` : ''})`,
    );
    return r;
  });
}
