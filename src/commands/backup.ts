/**
 * `mnemo.exportBackup` (one click from the view's toolbar) and `mnemo.importBackup`: AES-256 encrypted ZIP
 * backups written and read by the sidecar, with progress and cancel. Backup takes as few steps as the
 * password allows: with the saved password (OS keychain, SecretStorage) it is one click into the backup
 * folder (`mnemo.backup.folder`). The first backup asks once for that folder, outside VS Code's profile
 * (a backup beside the data it protects is lost with it), and remembers it; the password is asked twice
 * and may then be saved, after which daily or weekly backups are offered and the next run is named. The
 * result names the full path, with Copy Path (and Reveal where the OS file manager is on this machine:
 * not in a remote or browser window, where Reveal does nothing). Restore asks the password (again after a
 * wrong one), previews in a modal where the records would really go, and confirms Overwrite in a second
 * modal listing what changes.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  BackupExportRequest,
  BackupImportRequest,
  BackupInspectRequest,
  type BackupExportResult,
  type BackupImportMode,
  type BackupImportResult,
  type BackupPreview,
} from '../../sidecar/protocol';
import {
  backupFailureReason,
  confirmationsQuestion,
  isInside,
  KEEP_CONFIRMATIONS,
  overwriteDetail,
  previewDetail,
  restoreChoices,
  type RestoreChoice,
} from '../backupChoices';
import { MIN_PASSWORD_LENGTH as MIN_PASSWORD } from '../../sidecar/shared/backupPassword';
import { nextBackupDue, type BackupEvery } from '../../sidecar/shared/backupPeriod';
import { SECRETS, config } from '../config';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { projectLabel, workspaceProjects } from '../projects';
import { BuiltinCommand, Command } from '../commandIds';
import { formatLocal } from '../time';

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

/** Where backups go: `mnemo.backup.folder`, else (nothing chosen yet) the data folder's `backups/`. */
function backupFolder(ctx: Ctx): string {
  return config.backup.folder() || path.join(ctx.extension.globalStorageUri.fsPath, 'backups');
}

/** VS Code's user-data folder: the profile that holds the extension's storage, and so the memories. */
function profileFolder(ctx: Ctx): string {
  // <user-data>/User/globalStorage/<publisher.name>
  return path.resolve(ctx.extension.globalStorageUri.fsPath, '..', '..', '..');
}

/**
 * The backup folder, asked once: a folder outside VS Code's profile, remembered in `mnemo.backup.folder`
 * (user settings). Undefined when the person cancels.
 */
async function chooseBackupFolder(ctx: Ctx, title: string): Promise<string | undefined> {
  const chosen = config.backup.folder();
  if (chosen) return chosen;
  for (;;) {
    const picked = (
      await vscode.window.showOpenDialog({
        title: `${title}: where should backups go? A folder outside VS Code's profile (another disk, a synced folder)`,
        canSelectFiles: false,
        canSelectFolders: true,
        canSelectMany: false,
        defaultUri: vscode.Uri.file(os.homedir()),
        openLabel: 'Keep Backups Here',
      })
    )?.[0];
    if (!picked) return undefined;
    const folder = picked.fsPath;
    if (isInside(folder, profileFolder(ctx))) {
      const again = await vscode.window.showWarningMessage(
        'That folder is inside VS Code’s profile, beside the memories it would protect.',
        {
          modal: true,
          detail: `${folder}\n\nA lost or reset profile would take the backups with it. Choose a folder elsewhere (another disk or a synced folder).`,
        },
        'Choose Another Folder',
        'Use It Anyway',
      );
      if (again === 'Choose Another Folder') continue;
      if (again !== 'Use It Anyway') return undefined;
    }
    await vscode.workspace
      .getConfiguration('mnemo')
      .update('backup.folder', folder, vscode.ConfigurationTarget.Global);
    return folder;
  }
}

/** Reveal opens the OS file manager of the machine the editor runs on: not in a remote or browser window. */
function canReveal(): boolean {
  return vscode.env.remoteName === undefined && vscode.env.uiKind === vscode.UIKind.Desktop;
}

/**
 * After the password is saved: offers the schedule (off until chosen) and names when the next backup runs.
 * `written`: when the last backup of every project was written (undefined: none yet, the first runs now).
 */
async function offerSchedule(ctx: Ctx, password: string, written: Date | undefined): Promise<void> {
  await ctx.extension.secrets.store(SECRETS.backupPassword, password);
  const current = config.backup.schedule();
  if (current !== 'off') {
    announceSchedule(current, written);
    return;
  }
  const picked = await vscode.window.showInformationMessage(
    'Mnemo: the backup password is saved in the OS keychain. Back up on a schedule?',
    'Daily',
    'Weekly',
    'Not Now',
  );
  if (picked !== 'Daily' && picked !== 'Weekly') return;
  const every: BackupEvery = picked === 'Daily' ? 'daily' : 'weekly';
  await vscode.workspace
    .getConfiguration('mnemo')
    .update('backup.schedule', every, vscode.ConfigurationTarget.Global);
  announceSchedule(every, written);
}

function announceSchedule(every: BackupEvery, last: Date | undefined): void {
  const when = last
    ? `the next one runs about ${formatLocal(nextBackupDue(every, last).toISOString(), config.display.timeZone())}`
    : 'the first one runs within the hour';
  void vscode.window.showInformationMessage(
    `Mnemo: ${every} backups into ${config.backup.folder()} are on; ${when} while VS Code is open, keeping the last ${config.backup.keep()}.`,
  );
}

const RESTORE = 'Mnemo: Restore From Backup';

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.exportBackup, (arg?: { projectId?: string }) => backUp(ctx, arg?.projectId));
  ctx.registerCommand(Command.importBackup, (fileArg?: vscode.Uri) => restore(ctx, views, fileArg));
}

/** Back Up Memories: a folder (asked once), the password (saved or asked twice), an AES-256 ZIP, its path. */
async function backUp(ctx: Ctx, projectId: string | undefined): Promise<BackupExportResult | undefined> {
  const title = 'Mnemo: Back Up Memories';
  const folder = await chooseBackupFolder(ctx, title);
  if (!folder) return undefined;
  const saved = await ctx.extension.secrets.get(SECRETS.backupPassword);
  const password = saved ?? (await askPassword(title, true));
  if (!password) return undefined;
  const r = await ctx.requestWithProgress(
    BackupExportRequest,
    { out: folder + path.sep, password, project_id: projectId },
    'Mnemo: backing up memories',
  );
  const written = new Date();
  const SAVE = 'Save Password for Scheduled Backups';
  const actions = [...(canReveal() ? ['Reveal'] : []), 'Copy Path', ...(saved ? [] : [SAVE])];
  void vscode.window
    .showInformationMessage(
      `Mnemo: backed up ${r.counts.memories} memories to ${r.file} (AES-256).`,
      ...actions,
    )
    .then(async (choice) => {
      if (choice === 'Reveal')
        await vscode.commands.executeCommand(BuiltinCommand.revealFileInOS, vscode.Uri.file(r.file));
      else if (choice === 'Copy Path') await vscode.env.clipboard.writeText(r.file);
      // A scheduled backup holds every project: this one counts as its last run only if it did too.
      else if (choice === SAVE) await offerSchedule(ctx, password, projectId ? undefined : written);
    });
  return r;
}

/** How the person chose to restore a backup. */
interface RestorePlan {
  choice: RestoreChoice;
  newProjectId?: string;
  keepConfirmations: boolean;
}

/**
 * Restore From Backup: the file, the password (asked again after a wrong one), a modal preview of where the
 * records go, the choices it needs (a new project's id, kept confirmations, an overwrite made sure), then the
 * import with progress and one line in the status bar.
 */
async function restore(
  ctx: Ctx,
  views: Views,
  fileArg?: vscode.Uri,
): Promise<BackupImportResult | undefined> {
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
  const unlocked = await unlock(file, inspect);
  if (!unlocked) return undefined;
  const plan = await chooseRestore(file, unlocked.preview, () => inspect(unlocked.password, 'overwrite'));
  if (!plan) return undefined;
  const r = await ctx.requestWithProgress(
    BackupImportRequest,
    {
      file: file.fsPath,
      password: unlocked.password,
      mode: plan.choice.mode,
      new_project_id: plan.newProjectId?.trim(),
      project_ids: projectIds,
      consent: plan.choice.consent,
      keep_confirmations: plan.keepConfirmations,
    },
    'Mnemo: restoring memories',
  );
  const refused = r.refused.reduce((n, x) => n + x.memories + x.episodes, 0);
  views.statusBar.flash(
    `Restored ${r.inserted} new and ${r.overwritten} replaced memories (${r.skipped} kept as stored${r.reembedded ? `, ${r.reembedded} re-embedded` : ''}${r.episodes ? `, ${r.episodes} episodes` : ''}${refused ? `, ${refused} not imported` : ''})`,
  );
  return r;
}

/** The backup's password and first preview; a wrong password asks again with one sentence, nothing logged. */
async function unlock(
  file: vscode.Uri,
  inspect: (password: string, mode: BackupImportMode) => Promise<BackupPreview>,
): Promise<{ password: string; preview: BackupPreview } | undefined> {
  let problem: string | undefined;
  for (;;) {
    const password = await askPassword(RESTORE, false, problem);
    if (!password) return undefined;
    try {
      return { password, preview: await inspect(password, 'skip') };
    } catch (e) {
      if (backupFailureReason(e) !== 'wrong-password') throw e;
      problem = `The password is wrong for ${path.basename(file.fsPath)}.`;
    }
  }
}

/** The person's choices about a previewed backup; undefined when any question is dismissed. */
async function chooseRestore(
  file: vscode.Uri,
  preview: BackupPreview,
  previewOverwrite: () => Promise<BackupPreview>,
): Promise<RestorePlan | undefined> {
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
    const ow = await previewOverwrite();
    const sure = await vscode.window.showWarningMessage(
      'Overwrite stored memories with the backup?',
      { modal: true, detail: overwriteDetail(ow, projectLabel) },
      'Overwrite',
    );
    if (sure !== 'Overwrite') return undefined;
  }
  return { choice, newProjectId, keepConfirmations };
}
