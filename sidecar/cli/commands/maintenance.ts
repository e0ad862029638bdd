/**
 * The commands that keep the store in shape: decay, clean, wipe, compact. Rows of the command table
 * (commands/index.ts).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig, type SidecarConfigInput } from '../../config';
import { AuditLog } from '../../lifecycle/audit';
import { LexicalIndex } from '../../store/lexical/lexical';
import { ChromaSupervisor, purgeLine } from '../../store/chromaServer';
import type { CliCommand } from '../args';
import { UsageError, describe, out, shortDate, withService } from '../shared';

/**
 * `mnemo compact`: erases what deleted and edited memories left in Chroma's log (store/erasure.ts) while no
 * Chroma server runs on the data folder (a running one is left alone, and the command says so), then in
 * the audit log (texts an older version left there), then compacts the lexical index. Never starts Chroma
 * or loads the model.
 */
export async function compactCommand(cfgInput: SidecarConfigInput): Promise<number> {
  const config = resolveConfig(cfgInput);
  const supervisor = new ChromaSupervisor({ dataDir: config.dataDir, url: config.chromaUrl });
  const { result, skipped } = await supervisor.compact();
  let code = 0;
  if (skipped) {
    out(`Chroma's log was not compacted: ${skipped}.`);
    code = 1;
  } else if (result) out(purgeLine(result));
  else out('There is no embedded Chroma store in this data folder yet; nothing to compact.');
  // The audit log is rewritten in place, line by line, as every append's erasure is: safe beside a server.
  const erased = new AuditLog(join(config.dataDir, 'audit', 'audit.jsonl')).eraseGone();
  if (erased) out(`Erased deleted and replaced texts from ${erased} audit entries.`);
  const lexical = join(config.dataDir, 'index', 'lexical.sqlite');
  if (existsSync(lexical)) {
    const started = Date.now();
    const ix = await LexicalIndex.open(lexical);
    try {
      await ix.compact();
    } finally {
      ix.close();
    }
    out(`Compacted the lexical index (${statSync(lexical).size} bytes, ${Date.now() - started} ms).`);
  }
  return code;
}

export const decay: CliCommand = {
  names: ['decay'],
  usage: `  decay [--as-of DATE] [--apply]                                preview (default) or apply monthly confidence decay`,
  async run({ values, cfg }) {
    const asOf = values['as-of'];
    if (asOf && Number.isNaN(Date.parse(asOf)))
      throw new UsageError(`--as-of "${asOf}" is not a date; use YYYY-MM-DD.`);
    const r = await withService(cfg, (svc) =>
      svc.decay({ as_of: asOf ? new Date(asOf).toISOString() : undefined, apply: values.apply }),
    );
    if (values.json) {
      out(JSON.stringify(r, null, 2));
      return 0;
    }
    out(
      `${r.applied ? 'Applied' : 'Preview of'} decay as of ${shortDate(r.as_of)}: ${r.steps.length} memories change, ${r.steps.filter((x) => x.archive).length} would be archived.`,
    );
    for (const st of r.steps)
      out(
        `  ${st.id}  ${st.before.toFixed(3)} -> ${st.after.toFixed(3)}  (${st.months} month${st.months === 1 ? '' : 's'})${st.archive ? '  archive' : ''}  ${st.text}`,
      );
    if (!r.applied && r.steps.length) out('Nothing was changed; add --apply to apply it.');
    return 0;
  },
};

export const clean: CliCommand = {
  names: ['clean'],
  usage: `  clean [--threshold 0.5] [--apply] [--action archive|delete]   memories under a confidence threshold`,
  async run({ values, cfg, project }) {
    const threshold = values.threshold === undefined ? 0.5 : Number(values.threshold);
    if (!/^\s*\d*\.?\d+\s*$/.test(values.threshold ?? '0.5') || !(threshold >= 0 && threshold <= 1))
      throw new UsageError('--threshold must be a number from 0 to 1.');
    const preview = await withService(cfg, (svc) =>
      svc.cleanPreview({ project_id: values.project ? project : undefined, threshold }),
    );
    out(`${preview.total} memories under confidence ${threshold}:`);
    for (const m of preview.items) out(`  ${describe(m)}`);
    if (!values.apply) {
      if (preview.total) out('Nothing was changed; add --apply [--action archive|delete] to clean them.');
      return 0;
    }
    const action = (values.action ?? 'archive') as 'archive' | 'delete';
    if (action !== 'archive' && action !== 'delete')
      throw new UsageError('--action must be archive or delete.');
    const n = await withService(cfg, (svc) => svc.clean({ ids: preview.items.map((m) => m.id), action }));
    out(`${action === 'archive' ? 'Archived' : 'Deleted'} ${n} memories.`);
    return 0;
  },
};

export const wipe: CliCommand = {
  names: ['wipe'],
  usage: `  wipe --project P [--yes]                                      delete all of a project: memories, kept turns, index rows`,
  async run({ values, cfg, project }) {
    // Never the folder's own project by default: the project to wipe is named.
    if (!values.project)
      throw new UsageError('wipe needs --project P (the project to delete everything of).');
    if (!values.yes) {
      // Everything the wipe deletes: wrong, archived and superseded memories too.
      const n = await withService(cfg, async (svc) =>
        (await svc.stats(project)).projects.reduce(
          (sum, p) => sum + Object.values(p.by_status).reduce((a, b) => a + b, 0),
          0,
        ),
      );
      out(
        `Project ${project} holds ${n} memories. Nothing was changed; add --yes to delete them, its kept turns and index rows for good.`,
      );
      return 0;
    }
    const r = await withService(cfg, (svc) => svc.wipeProject({ project_id: project }));
    out(`Wiped project ${project}: ${r.memories} memories and ${r.episodes} kept turns deleted.`);
    return 0;
  },
};

export const compact: CliCommand = {
  names: ['compact'],
  usage: `  compact                                                       erase deleted and replaced texts from Chroma's log and the index files (Chroma stopped)`,
  async run({ cfg }) {
    return compactCommand(cfg);
  },
};
