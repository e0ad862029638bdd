/**
 * The command table: every `mnemo` command, in the order `mnemo --help` lists them (the help is the rows'
 * lines between its head and the global options). cli.ts looks a command up here and runs it.
 */
import type { CliCommand, CliValues } from '../args';
import { connect, importRules, mcp, promoteToRepo, readableExport, serve } from './agents';
import { backupExport, backupImport } from './backup';
import { capture, hooks, sources } from './capture';
import { clean, compact, decay, wipe } from './maintenance';
import { audit, confirm, ingest, ledger, list, recall, review, show, stats } from './memories';

export const COMMANDS: readonly CliCommand[] = [
  ingest,
  recall,
  list,
  show,
  ledger,
  confirm,
  review,
  decay,
  clean,
  audit,
  wipe,
  compact,
  backupExport,
  backupImport,
  stats,
  serve,
  mcp,
  connect,
  importRules,
  promoteToRepo,
  sources,
  capture,
  hooks,
  readableExport,
];

const GLOBAL_OPTIONS = `Global options:
  (LLM extraction, off by default: MNEMO_LLM_PRESET=glm-4-flash|deepseek|openai|ollama, or MNEMO_LLM_BASE_URL +
   MNEMO_LLM_MODEL; key in MNEMO_LLM_API_KEY or the preset's GLM_API_KEY / DEEPSEEK_API_KEY / OPENAI_API_KEY)
  --data-dir DIR     where memories live (env MNEMO_DATA_DIR; default the platform's data folder)
  --chroma-url URL   use a remote/team Chroma server (env MNEMO_CHROMA_URL)
  --model-path DIR   embedding model folder (env MNEMO_EMBEDDING_MODEL_PATH)
  --project P        project id (default: derived from the current folder's git remote or path)
`;

/** `mnemo --help`. */
export const USAGE = `Usage: mnemo <command> [options]

Commands:
${COMMANDS.map((c) => c.usage).join('\n')}

${GLOBAL_OPTIONS}`;

/** The row that runs `name` with these options, if any. */
export function findCommand(name: string, values: CliValues): CliCommand | undefined {
  return COMMANDS.find((c) => c.names.includes(name) && (c.when?.(values) ?? true));
}
