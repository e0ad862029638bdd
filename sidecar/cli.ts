/**
 * `mnemo`: the same core as the sidecar, without VS Code — for scripts, benchmarks and other agents.
 * Every failure is one sentence on stderr and a non-zero exit code; nothing stored is touched by bad input.
 */
import { resolveConfig } from './config';
import { MnemoError, errorMessage } from './shared/errors';
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
  dropOutput,
  errnoSentence,
  out,
  printable,
  refuseGlobalProject,
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
      throw new UsageError(`Unknown command "${command}". Run mnemo --help.`);
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
