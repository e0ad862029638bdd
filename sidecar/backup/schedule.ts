/**
 * Scheduled backups: the service calls {@link runScheduledBackup} on start and every hour
 * ({@link startBackupSchedule} does both). A backup is due when the newest one of the same scope in the
 * folder (or `lastRun`) is older than the period; after a backup, the folder is pruned to the last `keep`
 * backups of that scope. Only files named like Mnemo's default names are ever deleted.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BACKUP_CHECK_MS, nextBackupDue } from '../shared/backupPeriod';
import { errorMessage } from '../shared/errors';
import { exportBackup, type ExportResult } from './export';
import { scopeSlug } from './format';
import type { BackupHost } from './host';

export interface BackupScheduleSettings {
  /** Folder the backups are written to (created when missing). */
  folder: string;
  every: 'daily' | 'weekly';
  /** How many backups of this scope to keep (at least 1). Default 7. */
  keep?: number;
  password: string;
  /** Back up one project; default every project. */
  projectId?: string;
  /** Default true. */
  includeVectors?: boolean;
  /** The last run, when the caller keeps it; default the time in the newest backup's file name. */
  lastRun?: string | Date;
}

export interface ScheduledRun {
  ran: boolean;
  /** Why it did (not) run, one sentence for the log. */
  reason: string;
  result?: ExportResult;
  /** Backup files deleted by pruning. */
  pruned: string[];
}

const NAME = /^mnemo-backup-(.+)-(\d{8}T\d{6}Z)\.zip$/;
/** A temporary file older than this was left by a backup that died. */
const DAY_MS = 24 * 3600 * 1000;
const TEMP = /^\.mnemo-backup-.+\.zip\.[0-9a-f]+\.tmp$/;

/** Whether a backup is due at `now`, given the last run (none yet: due). */
export function isBackupDue(every: 'daily' | 'weekly', lastRun: Date | undefined, now: Date): boolean {
  if (!lastRun || Number.isNaN(lastRun.getTime())) return true;
  if (now.getTime() < lastRun.getTime()) return true; // the clock went back or the last run is from the future: do not trust it
  return now.getTime() >= nextBackupDue(every, lastRun).getTime();
}

/** Parses `20261130T061500Z`. */
export function parseCompactUtc(s: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Backups of one scope in a folder, oldest first (by the time in their names). */
export function listBackups(folder: string, projectId?: string): { file: string; at: Date }[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const scope = scopeSlug(projectId);
  const out: { file: string; at: Date }[] = [];
  for (const n of names) {
    const m = NAME.exec(n);
    if (!m || m[1] !== scope) continue;
    const at = parseCompactUtc(m[2]);
    if (at) out.push({ file: join(folder, n), at });
  }
  return out.sort((a, b) => a.at.getTime() - b.at.getTime() || a.file.localeCompare(b.file));
}

/** Deletes all but the newest `keep` backups of a scope, and temporary files older than a day; returns what was deleted. */
export function pruneBackups(
  folder: string,
  keep: number,
  projectId?: string,
  now: Date = new Date(),
): string[] {
  const all = listBackups(folder, projectId);
  const drop = all.slice(0, Math.max(0, all.length - Math.max(1, Math.floor(keep))));
  for (const b of drop) rmSync(b.file, { force: true });
  const removed = drop.map((b) => b.file);
  try {
    for (const n of readdirSync(folder)) {
      if (!TEMP.test(n)) continue;
      const f = join(folder, n);
      if (now.getTime() - statSync(f).mtimeMs > DAY_MS) {
        rmSync(f, { force: true });
        removed.push(f);
      }
    }
  } catch {
    // the folder vanished meanwhile: nothing to prune
  }
  return removed;
}

/** Makes a backup when one is due, then prunes. Never throws for a backup that is not due. */
export async function runScheduledBackup(
  svc: BackupHost,
  s: BackupScheduleSettings,
  clock: () => Date = () => new Date(),
): Promise<ScheduledRun> {
  const now = clock();
  const newest = listBackups(s.folder, s.projectId).at(-1)?.at;
  const given = s.lastRun === undefined ? undefined : new Date(s.lastRun);
  const lastRun = [given, newest]
    .filter((d): d is Date => !!d && !Number.isNaN(d.getTime()))
    .sort((a, b) => b.getTime() - a.getTime())[0];
  if (!isBackupDue(s.every, lastRun, now)) {
    return {
      ran: false,
      reason: `No ${s.every} backup due; the last one was at ${lastRun!.toISOString()}.`,
      pruned: [],
    };
  }
  const result = await exportBackup(svc, {
    out: s.folder.endsWith('/') ? s.folder : s.folder + '/',
    password: s.password,
    projectId: s.projectId,
    includeVectors: s.includeVectors,
    clock,
  });
  const pruned = pruneBackups(s.folder, s.keep ?? 7, s.projectId, now);
  return { ran: true, reason: `Scheduled ${s.every} backup written to ${result.file}.`, result, pruned };
}

/**
 * Runs {@link runScheduledBackup} now and every hour while `settings()` returns settings (undefined: scheduled
 * backups are off). Failures are logged and retried at the next check. Dispose to stop.
 */
export function startBackupSchedule(
  svc: BackupHost,
  settings: () => BackupScheduleSettings | undefined,
  opts: { clock?: () => Date; log?: (line: string) => void; intervalMs?: number } = {},
): { dispose(): void; tick(): Promise<ScheduledRun | undefined> } {
  const log = opts.log ?? (() => undefined);
  let running: Promise<ScheduledRun | undefined> | undefined;
  const tick = (): Promise<ScheduledRun | undefined> => {
    const s = settings();
    if (!s || running) return running ?? Promise.resolve(undefined);
    running = runScheduledBackup(svc, s, opts.clock)
      .then((r) => {
        if (r.ran) log(`${r.reason}${r.pruned.length ? ` Pruned ${r.pruned.length} old backup(s).` : ''}`);
        return r;
      })
      .catch((e: unknown) => {
        log(`Scheduled backup failed: ${errorMessage(e)}`);
        return undefined;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  void tick();
  const timer = setInterval(() => void tick(), opts.intervalMs ?? BACKUP_CHECK_MS);
  timer.unref?.();
  return { dispose: () => clearInterval(timer), tick };
}
