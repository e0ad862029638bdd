/** Encrypted backup: export, inspect, import, scheduled backups, and the CLI's password reader (docs/backup.md). */
export {
  exportBackup,
  resolveBackupTarget,
  MIN_PASSWORD_LENGTH,
  type ExportOptions,
  type ExportResult,
} from './export';
export {
  importBackup,
  inspectBackup,
  IMPORT_MODES,
  type BackupConflict,
  type BackupPreview,
  type ImportMode,
  type ImportOptions,
  type ImportResult,
} from './import';
export {
  BACKUP_FORMAT_VERSION,
  defaultBackupName,
  loadBackup,
  type BackupCounts,
  type BackupManifest,
  type BackupProgress,
  type CancellationFlag,
  type ImportedAuditEntry,
} from './format';
export type { BackupHost } from './host';
export { readBackupPassword, PASSWORD_ENV, type ReadPasswordOptions } from './password';
export {
  isBackupDue,
  listBackups,
  pruneBackups,
  runScheduledBackup,
  startBackupSchedule,
  type BackupScheduleSettings,
  type ScheduledRun,
} from './schedule';
