/**
 * The restore flow's decisions without `vscode` (unit-tested in test/unit/backupChoices.test.ts): which
 * buttons the preview modal offers, the modal's text, and whether a failed request was a wrong password
 * (the user may try again) — all from the sidecar's preview and error data.
 */
import * as path from 'node:path';
import type { BackupImportMode, BackupPreview } from '../sidecar/protocol';
import { backupPreviewLines, overwrittenTexts } from '../sidecar/shared/backupPreview';

export interface RestoreChoice {
  /** The modal's button. */
  label: string;
  mode: BackupImportMode;
  /** Records for global / other projects (and overwriting) go ahead. */
  consent: boolean;
  /** Overwrite is confirmed by a second modal listing what changes. */
  confirm?: boolean;
}

/** The buttons of the preview modal, most common first; the first never gives consent. */
export function restoreChoices(p: BackupPreview): RestoreChoice[] {
  const out: RestoreChoice[] = [];
  const own = p.targets.filter((t) => !t.needs_consent);
  const others = p.targets.filter((t) => t.needs_consent);
  if (own.some((t) => t.new > 0 || t.episodes > 0) || others.length === 0)
    out.push({ label: 'Restore', mode: 'skip', consent: false });
  if (others.length > 0)
    out.push({
      label: own.length ? 'Restore Including Other Projects' : 'Restore Into Those Projects',
      mode: 'skip',
      consent: true,
    });
  if (p.conflicts.some((c) => c.differs))
    out.push({ label: 'Overwrite…', mode: 'overwrite', consent: true, confirm: true });
  const asNew: RestoreChoice = { label: 'Import as a New Project…', mode: 'new-project', consent: false };
  // The first button is the one Enter presses: never one that writes into other projects or overwrites.
  // With nothing new for this workspace's projects, that is the import under a new project id.
  return out[0]?.consent ? [asNew, ...out] : [...out, asNew];
}

/** The preview modal's detail: where records go, conflicts, refusals. */
export function previewDetail(p: BackupPreview, label: (project: string) => string): string {
  return backupPreviewLines(p, label).join('\n');
}

/** The overwrite confirmation's detail: what would be replaced, texts first. */
export function overwriteDetail(p: BackupPreview, label: (project: string) => string, max = 8): string {
  const n = p.targets.reduce((s, t) => s + t.overwrite, 0);
  const lines = [`${n} stored ${n === 1 ? 'memory' : 'memories'} would be replaced by the backup's version:`];
  const texts = overwrittenTexts(p, label);
  const rest = p.conflicts.filter((c) => c.differs && !c.fields.includes('text'));
  for (const t of texts.slice(0, max)) lines.push(`• ${t}`);
  for (const c of rest.slice(0, Math.max(0, max - texts.length)))
    lines.push(`• ${c.text} (${label(c.project_id)}): ${c.fields.join(', ')}`);
  const shown = Math.min(max, texts.length + rest.length);
  if (texts.length + rest.length > shown) lines.push(`… and ${texts.length + rest.length - shown} more.`);
  return lines.join('\n');
}

/** The buttons of {@link confirmationsQuestion}: keep the backup's confirmations, or not. */
export const KEEP_CONFIRMATIONS = 'Keep Them (I Made This Backup)';

/**
 * The question a restore asks when the backup says some memories were confirmed: a backup is untrusted
 * (whoever holds the password can write one), so its confirmations come back pending unless the user made
 * it. Undefined when it claims none.
 */
export function confirmationsQuestion(
  p: BackupPreview,
): { message: string; detail: string; choices: string[] } | undefined {
  const { count, by } = p.confirmations;
  if (!count) return undefined;
  return {
    message: 'Keep the confirmations this backup says it has?',
    detail: `The file says ${count} ${count === 1 ? 'memory was' : 'memories were'} confirmed by ${by.join(', ')}. Keep them only if you made this backup; otherwise they come back waiting in the Review Queue, and everything restored counts as outside content until you confirm it.`,
    choices: [KEEP_CONFIRMATIONS, 'Review Them Again'],
  };
}

/** The backup failure reason a sidecar error carries (`wrong-password`, `tampered`, …), if any. */
export function backupFailureReason(err: unknown): string | undefined {
  const data = (err as { data?: unknown } | undefined)?.data;
  const reason = data && typeof data === 'object' ? (data as { reason?: unknown }).reason : undefined;
  return typeof reason === 'string' ? reason : undefined;
}

/**
 * Whether `folder` lies inside `profile` (VS Code's user-data folder, which holds the extension's storage
 * and so the memories): a backup there is lost with what it protects.
 */
export function isInside(folder: string, profile: string): boolean {
  const rel = path.relative(path.resolve(profile), path.resolve(folder));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
