/**
 * The encrypted backup: export and import (backup/). Rows of the command table (commands/index.ts); the
 * readable export (`export --format`) is agents.ts's row.
 */
import {
  exportBackup,
  importBackup,
  inspectBackup,
  readBackupPassword,
  IMPORT_MODES,
  type ImportMode,
} from '../../backup/index';
import { backupPreviewLines } from '../../shared/backupPreview';
import type { CliCommand } from '../args';
import { UsageError, cancelOnInterrupt, out, progressToStderr, withService } from '../shared';

export const backupExport: CliCommand = {
  names: ['export'],
  usage: `  export --out FILE|DIR [--project P] [--no-vectors]            encrypted backup (AES-256 ZIP)`,
  when: (v) => v.format === undefined,
  async run({ values, cfg }) {
    if (!values.out)
      throw new UsageError(
        'export needs --out FILE (or a folder for mnemo-backup-<project|all>-<time>.zip).',
      );
    const password = await readBackupPassword({ fromStdin: values['password-stdin'], confirm: true });
    const token = cancelOnInterrupt();
    const r = await withService(cfg, (svc) =>
      exportBackup(svc, {
        out: values.out!,
        password,
        projectId: values.project,
        includeVectors: !values['no-vectors'],
        onProgress: progressToStderr,
        token,
      }),
    );
    if (values.json) out(JSON.stringify(r, null, 2));
    else
      out(
        `Wrote ${r.file}: ${r.counts.memories} memories, ${r.counts.audit_entries} audit entries, AES-256 encrypted (${Math.ceil(r.bytes / 1024)} KiB).`,
      );
    return 0;
  },
};

export const backupImport: CliCommand = {
  names: ['import'],
  usage: `  import FILE [--mode skip|overwrite|new-project] [--dry-run] [--yes] [--keep-confirmations]
                                                                restore a backup, all or nothing; --dry-run shows where
                                                                records go; --yes consents to global, other projects, overwrite;
                                                                --keep-confirmations keeps what it says a person confirmed (your own backup)
  (backup password: typed at the terminal, --password-stdin, or MNEMO_BACKUP_PASSWORD)`,
  async run({ values, positionals, cfg, project }) {
    const file = positionals[0];
    if (!file) throw new UsageError('import needs a backup file.');
    const mode = (values.mode ?? 'skip') as ImportMode;
    if (!IMPORT_MODES.includes(mode))
      throw new UsageError(`Unknown mode "${values.mode}": use skip, overwrite or new-project.`);
    const password = await readBackupPassword({ fromStdin: values['password-stdin'] });
    const placement = {
      mode,
      newProjectId: mode === 'new-project' ? project : undefined,
      projectIds: [project],
      consent: values.yes,
      keepConfirmations: values['keep-confirmations'],
    };
    if (values['dry-run']) {
      const p = await withService(cfg, (svc) => inspectBackup(file, password, svc, placement));
      if (values.json) out(JSON.stringify(p, null, 2));
      else {
        for (const line of backupPreviewLines(p)) out(line);
        for (const c of p.conflicts.filter((x) => x.differs))
          out(`  ${c.id}  differs in ${c.fields.join(', ')}  ${c.text}`);
        out(
          p.needs_consent && !values.yes
            ? 'Nothing was changed; add --yes to import what needs your consent.'
            : 'Nothing was changed.',
        );
      }
      return 0;
    }
    const token = cancelOnInterrupt();
    const r = await withService(cfg, (svc) =>
      importBackup(svc, file, password, {
        ...placement,
        onProgress: progressToStderr,
        token,
      }),
    );
    if (values.json) out(JSON.stringify({ ...r, ids: undefined }, null, 2));
    else
      out(
        `Imported ${r.inserted} new and ${r.overwritten} replaced memories (${r.skipped} kept as stored, ${r.reembedded} re-embedded${r.episodes ? `, ${r.episodes} episodes` : ''}) into ${r.projects.join(', ') || 'no project'}${r.refused.length ? `; not imported: ${r.refused.map((x) => `${x.memories + x.episodes} ${x.reason}`).join('; ')} (see --dry-run)` : ''}.`,
      );
    return 0;
  },
};
