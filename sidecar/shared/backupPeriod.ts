/**
 * How often scheduled backups run (sidecar/backup/schedule.ts) and when the next one is due: shared with
 * the extension, which tells the person when the next backup runs after turning the schedule on.
 */
const HOUR_MS = 3600 * 1000;

export type BackupEvery = 'daily' | 'weekly';

export const BACKUP_PERIOD_MS: Record<BackupEvery, number> = {
  daily: 24 * HOUR_MS,
  weekly: 7 * 24 * HOUR_MS,
};

/** Checks run hourly: a backup up to an hour early counts as on time, so a daily one does not drift by an hour a day. */
export const BACKUP_CHECK_MS = HOUR_MS;

/** The earliest time the next backup is due after one written at `last` (it runs at the first check from then). */
export function nextBackupDue(every: BackupEvery, last: Date): Date {
  return new Date(last.getTime() + BACKUP_PERIOD_MS[every] - BACKUP_CHECK_MS);
}
