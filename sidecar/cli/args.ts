/**
 * The CLI's arguments: one option table for every command (`mnemo list --apply` is accepted and ignored, as
 * it always was), what a command's `run` receives, and the shape of a row of the command table.
 */
import { parseArgs } from 'node:util';
import type { SidecarConfigInput } from '../config';
import { projectIdFor } from '../shared/project';

/** Every option any command takes; parsed the same for all of them. */
const OPTIONS = {
  'data-dir': { type: 'string' },
  'chroma-url': { type: 'string' },
  'model-path': { type: 'string' },
  project: { type: 'string' },
  'source-type': { type: 'string' },
  explain: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  'top-k': { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  'as-of': { type: 'string' },
  apply: { type: 'boolean', default: false },
  threshold: { type: 'string' },
  action: { type: 'string' },
  out: { type: 'string' },
  mode: { type: 'string' },
  'password-stdin': { type: 'boolean', default: false },
  'no-vectors': { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  http: { type: 'boolean', default: false },
  port: { type: 'string' },
  yes: { type: 'boolean', default: false },
  'keep-confirmations': { type: 'boolean', default: false },
  undo: { type: 'boolean', default: false },
  pointer: { type: 'boolean', default: false },
  scope: { type: 'string' },
  file: { type: 'string' },
  ids: { type: 'string' },
  client: { type: 'string' },
  memories: { type: 'string' },
  format: { type: 'string' },
  'include-wrong': { type: 'boolean', default: false },
  source: { type: 'string', multiple: true },
  transcript: { type: 'string' },
  hook: { type: 'string' },
  drain: { type: 'boolean', default: false },
} as const;

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, options: OPTIONS });
}

export type CliValues = ReturnType<typeof parse>['values'];

/** What a command runs with: its name as typed, the options, the positionals, the config input, the project. */
export interface CliArgs {
  command: string;
  values: CliValues;
  positionals: string[];
  cfg: SidecarConfigInput;
  /** --project, else MNEMO_PROJECT, else the current folder's project. */
  project: string;
}

/** A row of the command table: the names it answers to, its lines of the help, and what it runs. */
export interface CliCommand {
  names: readonly string[];
  /** Its lines of `mnemo --help`, exactly as printed, in the table's order. */
  usage: string;
  /** When two rows share a name, the one whose `when` holds runs (export: --format or a backup). */
  when?: (values: CliValues) => boolean;
  /** The exit code. */
  run(a: CliArgs): Promise<number>;
}

/** Parses a command's arguments (a parse error is a usage error: ERR_PARSE_ARGS_*). */
export function parseCli(command: string, rest: string[]): CliArgs {
  const { values, positionals } = parse(rest);
  const cfg: SidecarConfigInput = {
    dataDir: values['data-dir'],
    chromaUrl: values['chroma-url'],
    embedding: { modelPath: values['model-path'] },
  };
  const project = values.project ?? process.env.MNEMO_PROJECT ?? projectIdFor(process.cwd());
  return { command, values, positionals, cfg, project };
}
