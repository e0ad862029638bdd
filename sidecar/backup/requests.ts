/**
 * The backup requests as the protocol sends them (snake_case params, a progress callback, a cancellation
 * token), handed to export / inspect / import with their options: the service offers each as one line.
 */
import type * as P from '../protocol';
import { exportBackup, type ExportResult } from './export';
import type { BackupProgress, CancellationFlag } from './format';
import type { BackupHost } from './host';
import { importBackup, inspectBackup, type BackupPreview, type ImportResult } from './import';

export type OnBackupProgress = ((p: BackupProgress) => void) | undefined;

/** `mnemo/backup/export`. */
export function exportRequest(
  host: BackupHost,
  p: P.BackupExportParams,
  onProgress: OnBackupProgress,
  token?: CancellationFlag,
): Promise<ExportResult> {
  return exportBackup(host, {
    out: p.out,
    password: p.password,
    projectId: p.project_id,
    includeVectors: p.include_vectors,
    onProgress,
    token,
  });
}

/** Where a backup's records would go, read by `mnemo/backup/inspect` and `mnemo/backup/import`. */
function placement(p: P.BackupInspectParams) {
  return {
    mode: p.mode,
    newProjectId: p.new_project_id,
    projectIds: p.project_ids,
    consent: p.consent === true,
    keepConfirmations: p.keep_confirmations === true,
  };
}

/** `mnemo/backup/inspect`: what an import would do, written nowhere. */
export function inspectRequest(host: BackupHost, p: P.BackupInspectParams): Promise<BackupPreview> {
  return inspectBackup(p.file, p.password, host, placement(p));
}

/** `mnemo/backup/import`. */
export function importRequest(
  host: BackupHost,
  p: P.BackupImportParams,
  onProgress: OnBackupProgress,
  token?: CancellationFlag,
): Promise<ImportResult> {
  return importBackup(host, p.file, p.password, { ...placement(p), mode: p.mode, onProgress, token });
}
