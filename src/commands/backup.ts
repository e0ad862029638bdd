/**
 * `mnemo.exportBackup` (one click from the view's toolbar) and `mnemo.importBackup`: AES-256 encrypted ZIP
 * backups written and read by the sidecar, with progress and cancel. Backup takes as few steps as the
 * password allows: with the saved password (OS keychain, SecretStorage) it is one click into the backup
 * folder (`mnemo.backup.folder`, else the data folder's `backups/`, created when missing); otherwise the
 * password is asked twice and may then be saved. The result names the full path, with Reveal and Copy
 * Path. Restore asks the password (again after a wrong one), previews in a modal where the records would
 * really go, and confirms Overwrite in a second modal listing what changes.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  BackupExportRequest,
  BackupImportRequest,
  BackupInspectRequest,
  type BackupImportMode,
  type BackupPreview,
} from '../../sidecar/protocol';
import {
  backupFailureReason,
  confirmationsQuestion,
  KEEP_CONFIRMATIONS,
  overwriteDetail,
  previewDetail,
  restoreChoices,
} from '../backupChoices';
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../sidecar/shared/backupPassword';
import { SECRETS, config } from '../config';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { projectLabel, workspaceProjects } from '../projects';
import { BuiltinCommand, Command } from '../commandIds';

async function askPassword(title: string, confirm: boolean, problem?: string): Promise<string | undefined> {
  const password = await vscode.window.showInputBox({
    title,
    prompt: problem
      ? `${problem} Type the password again, or press Escape to stop.`
      : `Backup password (at least ${MIN_PASSWORD} characters). Only you hold it: without it the backup cannot be opened.`,
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

/** Where backups go: `mnemo.backup.folder`, else the data folder's `backups/` (the sidecar creates it). */
function backupFolder(ctx: Ctx): string {
  return config.backup.folder() || path.join(ctx.extension.globalStorageUri.fsPath, 'backups');
}

const RESTORE = 'Mnemo: Restore From Backup';

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.exportBackup, async (arg?: { projectId?: string }) => {
    const title = 'Mnemo: Back Up Memories';
    const saved = await ctx.extension.secrets.get(SECRETS.backupPassword);
    const password = saved ?? (await askPassword(title, true));
    if (!password) return undefined;
    const r = await ctx.requestWithProgress(
      BackupExportRequest,
      { out: backupFolder(ctx) + path.sep, password, project_id: arg?.projectId },
      'Mnemo: backing up memories',
    );
    const actions = ['Reveal', 'Copy Path', ...(saved ? [] : ['Save Password for Scheduled Backups'])];
    void vscode.window
      .showInformationMessage(
        `Mnemo: backed up ${r.counts.memories} memories to ${r.file} (AES-256).`,
        ...actions,
      )
      .then(async (choice) => {
        if (choice === 'Reveal')
          await vscode.commands.executeCommand(BuiltinCommand.revealFileInOS, vscode.Uri.file(r.file));
        else if (choice === 'Copy Path') await vscode.env.clipboard.writeText(r.file);
        else if (choice === 'Save Password for Scheduled Backups')
          await ctx.extension.secrets.store(SECRETS.backupPassword, password);
      });
    return r;
  });

  ctx.registerCommand(Command.importBackup, async (fileArg?: vscode.Uri) => {
    const file =
      fileArg ??
      (
        await vscode.window.showOpenDialog({
          title: RESTORE,
          canSelectMany: false,
          filters: { 'Mnemo backup': ['zip'] },
          defaultUri: vscode.Uri.file(backupFolder(ctx)),
          openLabel: 'Restore',
        })
      )?.[0];
    if (!file) return undefined;
    const projectIds = workspaceProjects().map((p) => p.projectId);
    const inspect = (password: string, mode: BackupImportMode): Promise<BackupPreview> =>
      Promise.resolve(
        vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'Mnemo: checking the backup…' },
          () =>
            ctx.request(BackupInspectRequest, { file: file.fsPath, password, mode, project_ids: projectIds }),
        ),
      );
    // The password, asked again after a wrong one (one sentence in the prompt, nothing in the log).
    let password: string | undefined;
    let preview: BackupPreview | undefined;
    let problem: string | undefined;
    while (!preview) {
      password = await askPassword(RESTORE, false, problem);
      if (!password) return undefined;
      try {
        preview = await inspect(password, 'skip');
      } catch (e) {
        if (backupFailureReason(e) !== 'wrong-password') throw e;
        problem = `The password is wrong for ${path.basename(file.fsPath)}.`;
      }
    }
    const choices = restoreChoices(preview);
    const picked = await vscode.window.showWarningMessage(
      `Restore ${path.basename(file.fsPath)}?`,
      { modal: true, detail: previewDetail(preview, projectLabel) },
      ...choices.map((c) => c.label),
    );
    const choice = choices.find((c) => c.label === picked);
    if (!choice) return undefined;
    let newProjectId: string | undefined;
    if (choice.mode === 'new-project') {
      newProjectId = await vscode.window.showInputBox({
        title: RESTORE,
        prompt: 'Project id for the imported memories',
        value: `${preview.projects[0] ?? 'restored'}-restored`,
        validateInput: (v) => (v.trim() ? undefined : 'A project id is required.'),
      });
      if (!newProjectId) return undefined;
    }
    const ask = confirmationsQuestion(preview);
    let keepConfirmations = false;
    if (ask) {
      const keep = await vscode.window.showWarningMessage(
        ask.message,
        { modal: true, detail: ask.detail },
        ...ask.choices,
      );
      if (!keep) return undefined;
      keepConfirmations = keep === KEEP_CONFIRMATIONS;
    }
    if (choice.confirm) {
      const ow = await inspect(password!, 'overwrite');
      const sure = await vscode.window.showWarningMessage(
        'Overwrite stored memories with the backup?',
        { modal: true, detail: overwriteDetail(ow, projectLabel) },
        'Overwrite',
      );
      if (sure !== 'Overwrite') return undefined;
    }
    const r = await ctx.requestWithProgress(
      BackupImportRequest,
      {
        file: file.fsPath,
        password: password!,
        mode: choice.mode,
        new_project_id: newProjectId?.trim(),
        project_ids: projectIds,
        consent: choice.consent,
        keep_confirmations: keepConfirmations,
      },
      'Mnemo: restoring memories',
    );
    const refused = r.refused.reduce((n, x) => n + x.memories + x.episodes, 0);
    views.statusBar.flash(
      `Restored ${r.inserted} new and ${r.overwritten} replaced memories (${r.skipped} kept as stored${r.reembedded ? `, ${r.reembedded} re-embedded` : ''}${r.episodes ? `, ${r.episodes} episodes` : ''}${refused ? `, ${refused} not imported` : ''})`,
    );
    return r;
  });
}
