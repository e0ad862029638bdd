/**
 * `mnemo`: the same core as the sidecar, without VS Code — for scripts, benchmarks and other agents.
 * Every failure is one sentence on stderr and a non-zero exit code; nothing stored is touched by bad input.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig, type SidecarConfigInput } from './config';
import {
  exportBackup,
  importBackup,
  inspectBackup,
  readBackupPassword,
  IMPORT_MODES,
  type ImportMode,
} from './backup/index';
import { MnemoError, errorMessage } from './shared/errors';
import { AuditLog } from './lifecycle/audit';
import { LexicalIndex } from './store/lexical/lexical';
import { ChromaSupervisor, purgeLine } from './store/chromaServer';
import { backupPreviewLines } from './shared/backupPreview';
import {
  connectCommand,
  importRulesCommand,
  promoteCommand,
  readableExportCommand,
} from './agents/cliCommands';
import { captureCommands } from './capture/cli';
import { runMcp } from './agents';
import { serveStdio } from './stdio';
import { parseCli } from './cli/args';
import { findCommand } from './cli/commands/index';
import {
  UsageError,
  cancelOnInterrupt,
  describe,
  dropOutput,
  errnoSentence,
  out,
  printable,
  progressToStderr,
  refuseGlobalProject,
  shortDate,
  withService,
} from './cli/shared';

const USAGE = `Usage: mnemo <command> [options]

Commands:
  ingest [--project P] [--source-type T] [--explain] FILE|-   learn from a transcript (JSON messages)
  recall [--project P] [--top-k K] [--json] QUERY              recall memories for a query
  list [--project P] [--status S] [--json]                      list memories, newest first
  show ID                                                       one memory with its metadata, and when and to whom it was served
  ledger [ID] [--limit N] [--client C] [--json]                 what agents and people were shown (recalls served), newest first
  confirm ID | mark-wrong ID                                    feedback on a memory
  confirm --file FILE [--project P]                             confirm every pending rule imported from FILE (not what the firewall held)
  review [--project P]                                          today's digest: top 10 pending memories
  decay [--as-of DATE] [--apply]                                preview (default) or apply monthly confidence decay
  clean [--threshold 0.5] [--apply] [--action archive|delete]   memories under a confidence threshold
  audit [ID] [--project P]                                      the audit log of a memory or project
  wipe --project P [--yes]                                      delete all of a project: memories, kept turns, index rows
  compact                                                       erase deleted and replaced texts from Chroma's log and the index files (Chroma stopped)
  export --out FILE|DIR [--project P] [--no-vectors]            encrypted backup (AES-256 ZIP)
  import FILE [--mode skip|overwrite|new-project] [--dry-run] [--yes] [--keep-confirmations]
                                                                restore a backup, all or nothing; --dry-run shows where
                                                                records go; --yes consents to global, other projects, overwrite;
                                                                --keep-confirmations keeps what it says a person confirmed (your own backup)
  (backup password: typed at the terminal, --password-stdin, or MNEMO_BACKUP_PASSWORD)
  stats [--json]                                                counts per project
  serve                                                         the sidecar on stdio (JSON-RPC)
  mcp [--http [--port N]] [--project P]                         the MCP server for agents (stdio; HTTP on 127.0.0.1, the install's port, a bearer token)
  connect AGENT [--scope S] [--pointer] [--yes] [--undo]        MCP config for claude-code, codex, cursor, cline, windsurf, copilot-cli (diff first);
                                                                --scope local|user (yours; the default) or project (committed: portable only)
  import-rules [PATH] [--memories DIR] [--explain]            AGENTS.md, CLAUDE.md, copilot-instructions, .cursorrules, .cursor/rules -> memories waiting for review
  promote-to-repo [--file AGENTS.md] [--ids A,B] [--yes]        confirmed memories into Mnemo's section of the instruction file (diff first)
  sources [--json]                                              agents' transcripts found for this folder, with session counts (reads none)
  capture [--source S]… [--transcript PATH] [--yes]             learn from agents' transcripts of this folder; without --yes only says what it would read
  capture --hook AGENT                                          what an agent's session-end hook runs: queued durably, learned in the background
  hooks AGENT [--undo] [--yes]                                  capture hooks for claude-code, gemini-cli, copilot-cli, codex (diff first)
  export --format jsonl|markdown --out FILE|- [--project P]     readable export (redacted, NOT encrypted)

Global options:
  (LLM extraction, off by default: MNEMO_LLM_PRESET=glm-4-flash|deepseek|openai|ollama, or MNEMO_LLM_BASE_URL +
   MNEMO_LLM_MODEL; key in MNEMO_LLM_API_KEY or the preset's GLM_API_KEY / DEEPSEEK_API_KEY / OPENAI_API_KEY)
  --data-dir DIR     where memories live (env MNEMO_DATA_DIR; default the platform's data folder)
  --chroma-url URL   use a remote/team Chroma server (env MNEMO_CHROMA_URL)
  --model-path DIR   embedding model folder (env MNEMO_EMBEDDING_MODEL_PATH)
  --project P        project id (default: derived from the current folder's git remote or path)
`;

/**
 * `mnemo compact`: erases what deleted and edited memories left in Chroma's log (store/erasure.ts) while no
 * Chroma server runs on the data folder (a running one is left alone, and the command says so), then in
 * the audit log (texts an older version left there), then compacts the lexical index. Never starts Chroma
 * or loads the model.
 */
async function compactCommand(cfgInput: SidecarConfigInput): Promise<number> {
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

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return command ? 0 : 2;
  }
  const args = parseCli(command, rest);
  const row = findCommand(command, args.values);
  if (row) return row.run(args);
  const { values, positionals, cfg, project } = args;

  switch (command) {
    case 'serve':
      serveStdio(cfg);
      return new Promise<number>(() => undefined); // runs until the connection closes
    case 'mcp': {
      const port = values.port === undefined ? undefined : Number(values.port);
      if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
        throw new UsageError('--port must be a port number (0 for any free port).');
      refuseGlobalProject(values.project ?? process.env.MNEMO_PROJECT, 'run the MCP server');
      await runMcp(cfg, { http: values.http, port, project: values.project ?? process.env.MNEMO_PROJECT });
      return 0;
    }
    case 'connect':
      await connectCommand(
        {
          agent: positionals[0],
          projectDir: process.cwd(),
          dataDir: values['data-dir'] ?? process.env.MNEMO_DATA_DIR,
          scope: values.scope,
          yes: values.yes,
          undo: values.undo,
          pointer: values.pointer,
          file: values.file,
        },
        out,
      );
      return 0;
    case 'import-rules':
      refuseGlobalProject(project, 'import rules');
      await importRulesCommand(
        {
          path: positionals[0],
          projectId: project,
          memoriesDir: values.memories,
          by: resolveConfig(cfg).user,
          json: values.json,
          explain: values.explain,
        },
        (fn) => withService(cfg, fn),
        out,
      );
      return 0;
    case 'promote-to-repo':
      await promoteCommand(
        {
          projectDir: process.cwd(),
          projectId: project,
          file: values.file,
          ids: values.ids,
          yes: values.yes,
          by: resolveConfig(cfg).user,
        },
        (fn) => withService(cfg, fn),
        out,
      );
      return 0;
    case 'sources':
    case 'capture':
    case 'hooks':
      return captureCommands(
        command,
        { values, positionals, cfg, config: resolveConfig(cfg) },
        (fn) => withService(cfg, fn),
        out,
      );
    case 'decay': {
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
    }
    case 'clean': {
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
    }
    case 'wipe': {
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
    }
    case 'compact':
      return compactCommand(cfg);
    case 'export': {
      if (values.format !== undefined) {
        await readableExportCommand(
          {
            format: values.format,
            out: values.out,
            projectId: values.project,
            includeWrong: values['include-wrong'],
            by: resolveConfig(cfg).user,
          },
          (fn) => withService(cfg, fn),
          out,
        );
        return 0;
      }
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
    }
    case 'import': {
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
    }
    default:
      throw new UsageError(`Unknown command "${command}". Run mnemo --help.`);
  }
}

/** Runs the CLI and sets the exit code; errors become one sentence on stderr. */
export function run(argv: string[] = process.argv.slice(2)): Promise<void> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    dropOutput();
    if (e.code === 'EPIPE') return; // the reader is done (| head): not an error
    process.stderr.write(`mnemo: the output could not be written (${errnoSentence(e)}).\n`);
    process.exitCode = 1;
  });
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e; // stderr's reader went away too: nothing left to tell
  });
  return main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      const code = (e as { code?: string })?.code;
      const usage =
        e instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'));
      const msg = usage || e instanceof MnemoError ? errorMessage(e) : `mnemo failed: ${errnoSentence(e)}.`;
      process.stderr.write(`mnemo: ${printable(msg)}\n`);
      if (process.env.MNEMO_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
      process.exitCode = usage ? 2 : 1;
    },
  );
}

if (require.main === module) void run();
