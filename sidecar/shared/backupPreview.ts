/**
 * The restore preview in words, for the CLI's `mnemo import --dry-run` and the extension's modal: where the
 * records would really go (per project, from the import plan, not the manifest's claims), conflicts, what
 * would be refused and why, and whether consent is needed. Imports only the contract.
 */
import type { BackupPreview } from '../protocol';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** A UTC time as a person reads it, to the minute ("2026-11-30 06:15 UTC"); anything else as it came. */
export function readableTime(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

/** One line per target project, then conflicts, refusals and consent; no trailing period games. */
export function backupPreviewLines(
  p: BackupPreview,
  label: (project: string) => string = (x) => x,
): string[] {
  const out: string[] = [];
  const episodes = p.counts.episodes ?? 0;
  out.push(
    `${plural(p.counts.memories, 'memory', 'memories')}${episodes ? ` and ${plural(episodes, 'episode')}` : ''} in the file (it says it was made ${readableTime(p.created_at)} by ${p.created_by} with ${p.embedding.model ?? 'no model'}).`,
  );
  if (p.targets.length === 0 && p.refused.length === 0) out.push('Nothing would be written.');
  for (const t of p.targets) {
    const parts = [`${t.new} new`];
    if (t.overwrite) parts.push(`${t.overwrite} replaced`);
    if (t.conflicts) parts.push(`${t.conflicts} already stored (${t.differ} differ)`);
    if (t.episodes) parts.push(plural(t.episodes, 'episode'));
    out.push(
      `→ ${label(t.project_id)}: ${parts.join(', ')}${t.needs_consent ? ' — needs your consent' : ''}.`,
    );
  }
  for (const r of p.refused) {
    const what = [
      r.memories ? plural(r.memories, 'memory', 'memories') : '',
      r.episodes ? plural(r.episodes, 'episode') : '',
    ]
      .filter(Boolean)
      .join(' and ');
    out.push(`Not imported: ${what}, ${r.reason}.`);
  }
  if (p.ids_recomputed)
    out.push(
      `${plural(p.ids_recomputed, 'id')} did not match ${p.ids_recomputed === 1 ? 'its' : 'their'} text and would have replaced a stored memory: imported under the id of ${p.ids_recomputed === 1 ? 'its' : 'their'} own text.`,
    );
  if (p.confirmations.count)
    out.push(
      `The file says ${plural(p.confirmations.count, 'memory', 'memories')} ${p.confirmations.count === 1 ? 'was' : 'were'} confirmed by ${p.confirmations.by.join(', ')}: ${p.confirmations.count === 1 ? 'it comes' : 'they come'} back waiting for review unless you keep the backup's confirmations (only if you made this backup).`,
    );
  if (p.needs_reembed) out.push('Texts will be re-embedded with the current model.');
  return out;
}

/**
 * The stored memories whose text the backup would change (mode overwrite), each as what it says now and what
 * it would say: `“Port is 5432” becomes “Port is 6543” (web-shop)`, texts cut to `max` characters.
 */
export function overwrittenTexts(
  p: BackupPreview,
  label: (project: string) => string = (x) => x,
  max = 120,
): string[] {
  const cut = (t: string): string => (t.length > max ? `${t.slice(0, max - 1)}…` : t);
  return p.conflicts
    .filter((c) => c.differs && c.fields.includes('text'))
    .map(
      (c) =>
        `“${cut(c.text)}” becomes ${c.backup_text === undefined ? 'the backup’s text' : `“${cut(c.backup_text)}”`} (${label(c.project_id)})`,
    );
}
