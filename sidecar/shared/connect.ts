/**
 * `mnemo connect <agent>` and "Mnemo: Connect an Agent…": Mnemo's MCP server entry in each agent's own
 * configuration, in the scope the person picks, at the location the agent's documentation gives
 * (docs/mcp.md cites each one):
 *
 * | agent       | local (you, this project)          | user (you, every project)                 | project (committed) |
 * | claude-code | `~/.claude.json` `projects[<dir>]` | `~/.claude.json` `mcpServers`             | `<project>/.mcp.json` |
 * | cursor      |                                    | `~/.cursor/mcp.json`                      | `<project>/.cursor/mcp.json` |
 * | codex       |                                    | `$CODEX_HOME/config.toml` (`~/.codex`)    | |
 * | cline       |                                    | `<VS Code user dir>/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json` | |
 * | windsurf    |                                    | `~/.codeium/windsurf/mcp_config.json`     | |
 * | copilot-cli |                                    | `$COPILOT_HOME/mcp-config.json` (`~/.copilot`) | |
 *
 * A per-user scope gets this machine's launch (absolute paths, the data folder, non-secret settings); a
 * file meant to be committed gets only what is portable ({@link PORTABLE_LAUNCH}: `mnemo mcp`, found on
 * each teammate's PATH), and only when the person picks that scope. Only the `mnemo` entry is touched: in
 * JSON it is edited in place (comments, numbers, a byte-order mark and every other key kept), in TOML its
 * table is replaced; keys the person added to the entry (their own `env` included) are kept. A file that
 * does not parse is never written. Writing, backups and undo: fileChange.ts.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type {
  parse as ParseToml,
  stringify as StringifyToml,
} from 'smol-toml' with { 'resolution-mode': 'import' };
// smol-toml ships ESM typings with a CommonJS build; require() gets the CommonJS one.
const { parse: parseToml, stringify: stringifyToml } = require('smol-toml') as {
  parse: typeof ParseToml;
  stringify: typeof StringifyToml;
};
import { InvalidInputError } from './errors';
import { editJson, planChange, readIfExists, readJson, upsertSection, type FileChange } from './fileChange';

export const AGENTS = ['claude-code', 'codex', 'cursor', 'cline', 'windsurf', 'copilot-cli'] as const;
export type AgentId = (typeof AGENTS)[number];

export const AGENT_LABEL: Record<AgentId, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  cursor: 'Cursor',
  cline: 'Cline',
  windsurf: 'Windsurf',
  'copilot-cli': 'GitHub Copilot CLI',
};

/** The name of Mnemo's entry in every agent's configuration. */
export const SERVER_KEY = 'mnemo';

export function isAgent(v: unknown): v is AgentId {
  return typeof v === 'string' && (AGENTS as readonly string[]).includes(v);
}

/**
 * Where an agent's MCP entry lives: `local` (this user, this project only: kept in the user's own
 * configuration, keyed by the project), `user` (this user, every project), `project` (a file in the
 * repository, shared through git: portable content only).
 */
export const SCOPES = ['local', 'user', 'project'] as const;
export type ConnectScope = (typeof SCOPES)[number];

export const SCOPE_LABEL: Record<ConnectScope, string> = {
  local: 'only you, only this project',
  user: 'only you, every project',
  project: 'the whole team, committed to the repository',
};

export function isScope(v: unknown): v is ConnectScope {
  return typeof v === 'string' && (SCOPES as readonly string[]).includes(v);
}

/** The scopes an agent has, the default (a per-user one, never the committed file) first. */
export function scopesOf(agent: AgentId): readonly ConnectScope[] {
  if (agent === 'claude-code') return ['local', 'user', 'project'];
  if (agent === 'cursor') return ['user', 'project'];
  return ['user'];
}

/** How an agent starts Mnemo's MCP server. */
export interface McpLaunch {
  command: string;
  args: string[];
  /** Only non-secret settings (data folder, model): API keys never go into an agent's config file. */
  env?: Record<string, string>;
}

/**
 * The only launch a file meant to be committed gets: the `mnemo` command each teammate has on their PATH,
 * on their own default data folder. No path of this machine, no setting of this user.
 */
export const PORTABLE_LAUNCH: McpLaunch = { command: 'mnemo', args: ['mcp'] };

export interface LocationContext {
  /** The project (workspace folder). */
  projectDir: string;
  home?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** VS Code's user folder (`…/Code/User`), known exactly inside the editor; else the platform default. */
  vscodeUserDir?: string;
}

/** Where an agent keeps its MCP servers in one scope: the file, its format, and the path of the servers' object in it. */
export interface ConfigTarget {
  agent: AgentId;
  scope: ConnectScope;
  file: string;
  format: 'json' | 'toml';
  /** JSON: the keys leading to the object of servers (`['mcpServers']`, or under `projects` for Claude Code's local scope). */
  serversPath: string[];
}

function defaultVscodeUserDir(home: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Code', 'User');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Code', 'User');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Code', 'User');
}

/** Where an agent reads its MCP servers in a scope (default: its first, a per-user one). */
export function configTarget(
  agent: AgentId,
  ctx: LocationContext,
  scope: ConnectScope = scopesOf(agent)[0]!,
): ConfigTarget {
  if (!scopesOf(agent).includes(scope))
    throw new InvalidInputError(
      `${AGENT_LABEL[agent]} keeps its MCP servers ${scopesOf(agent)
        .map((s) => `in the ${s} scope`)
        .join(' or ')}, not in the ${scope} scope.`,
    );
  const home = ctx.home ?? homedir();
  const env = ctx.env ?? process.env;
  const platform = ctx.platform ?? process.platform;
  const json = (file: string, serversPath = ['mcpServers']): ConfigTarget => ({
    agent,
    scope,
    file,
    format: 'json',
    serversPath,
  });
  switch (agent) {
    case 'claude-code':
      if (scope === 'project') return json(join(ctx.projectDir, '.mcp.json'));
      // Claude Code keeps a user's own servers in its user configuration: at the top for every project,
      // under the project's absolute path for one project (its "local" scope, the default of `claude mcp add`).
      return json(
        join(home, '.claude.json'),
        scope === 'local' ? ['projects', resolve(ctx.projectDir), 'mcpServers'] : ['mcpServers'],
      );
    case 'cursor':
      return json(
        scope === 'project' ? join(ctx.projectDir, '.cursor', 'mcp.json') : join(home, '.cursor', 'mcp.json'),
      );
    case 'codex':
      return {
        agent,
        scope,
        file: join(env.CODEX_HOME || join(home, '.codex'), 'config.toml'),
        format: 'toml',
        serversPath: ['mcp_servers'],
      };
    case 'windsurf':
      return json(join(home, '.codeium', 'windsurf', 'mcp_config.json'));
    case 'copilot-cli':
      return json(join(env.COPILOT_HOME || join(home, '.copilot'), 'mcp-config.json'));
    case 'cline':
      return json(
        join(
          ctx.vscodeUserDir ?? defaultVscodeUserDir(home, env, platform),
          'globalStorage',
          'saoudrizwan.claude-dev',
          'settings',
          'cline_mcp_settings.json',
        ),
      );
  }
}

/** The server entry in an agent's JSON dialect. */
export function jsonEntry(agent: Exclude<AgentId, 'codex'>, launch: McpLaunch): Record<string, unknown> {
  const base: Record<string, unknown> = {
    command: launch.command,
    args: launch.args,
    ...(launch.env && Object.keys(launch.env).length ? { env: launch.env } : {}),
  };
  if (agent === 'cline') return { ...base, disabled: false, autoApprove: [] };
  if (agent === 'copilot-cli') return { type: 'local', ...base, tools: ['*'] };
  return base;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** The data folder an entry starts Mnemo on: its `--data-dir` argument, else its MNEMO_DATA_DIR. */
function dataDirOf(entry: Record<string, unknown>): string | undefined {
  const args = Array.isArray(entry.args) ? entry.args : [];
  const i = args.indexOf('--data-dir');
  if (i >= 0 && typeof args[i + 1] === 'string') return args[i + 1] as string;
  const env = isObject(entry.env) ? entry.env : {};
  return typeof env.MNEMO_DATA_DIR === 'string' ? env.MNEMO_DATA_DIR : undefined;
}

/**
 * Mnemo's entry as it will be: what Mnemo sets (command, args, its env keys, the dialect's keys) over the
 * entry already there, whose other keys (the person's own env, a timeout) are kept; and a note when the
 * data folder changes (the agent would read and write another store).
 */
function mergedEntry(
  old: unknown,
  fresh: Record<string, unknown>,
  file: string,
): { entry: Record<string, unknown>; notes: string[] } {
  if (!isObject(old)) return { entry: fresh, notes: [] };
  const env = {
    ...(isObject(old.env) ? old.env : {}),
    ...(isObject(fresh.env) ? fresh.env : {}),
  };
  const entry: Record<string, unknown> = { ...old, ...fresh };
  if (Object.keys(env).length) entry.env = env;
  else delete entry.env;
  const [was, now] = [dataDirOf(old), dataDirOf(entry)];
  const notes =
    was !== now
      ? [
          `The mnemo entry in ${file} used ${was ? `the data folder ${was}` : 'the default data folder'}; it will use ${now ? now : 'the default data folder'}, so the agent reads and writes that store from now on.`,
        ]
      : [];
  return { entry, notes };
}

function servers(root: unknown, target: ConfigTarget): Record<string, unknown> {
  let node: unknown = root;
  for (const key of target.serversPath) {
    if (node === undefined) return {};
    if (!isObject(node))
      throw new InvalidInputError(
        `${target.file} does not hold a JSON object where Mnemo expects "${key}"; Mnemo did not change it.`,
      );
    node = node[key];
  }
  if (node === undefined) return {};
  if (!isObject(node))
    throw new InvalidInputError(
      `"${target.serversPath.join('.')}" in ${target.file} is not an object; Mnemo did not change it.`,
    );
  return node;
}

function checkToml(text: string, file: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new InvalidInputError(
      `${file} is not valid TOML (${(e as Error).message.split('\n')[0]}); fix it or move it away, Mnemo did not change it.`,
    );
  }
}

/**
 * Line ranges of `[mcp_servers.mnemo]` and its sub-tables in a TOML text; any other table header, an
 * array of tables (`[[…]]`) included, ends a range.
 */
function tomlMnemoRanges(lines: string[]): [number, number][] {
  const ranges: [number, number][] = [];
  const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
  const isMnemo = (line: string, name: string) => {
    if (line.trimStart().startsWith('[[')) return false;
    const n = name.replace(/\s+/g, '').replace(/"mnemo"/g, 'mnemo');
    return n === `mcp_servers.${SERVER_KEY}` || n.startsWith(`mcp_servers.${SERVER_KEY}.`);
  };
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const m = header.exec(lines[i]!);
    if (!m) continue;
    if (start >= 0) {
      ranges.push([start, i]);
      start = -1;
    }
    if (isMnemo(lines[i]!, m[1]!)) start = i;
  }
  if (start >= 0) ranges.push([start, lines.length]);
  return ranges;
}

/** The TOML text without the lines of Mnemo's tables, blank runs closed. */
function withoutMnemoTables(text: string): string {
  const lines = text.split('\n');
  const drop = new Set<number>();
  for (const [a, b] of tomlMnemoRanges(lines)) for (let i = a; i < b; i++) drop.add(i);
  return lines
    .filter((_l, i) => !drop.has(i))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n*$/, '\n');
}

const mnemoOf = (t: Record<string, unknown>): unknown =>
  isObject(t.mcp_servers) ? t.mcp_servers[SERVER_KEY] : undefined;

/** Codex: the TOML with Mnemo's table set (merged as {@link mergedEntry}), where it was or at the end. */
function renderToml(
  existing: string | undefined,
  launch: McpLaunch,
  file: string,
): { text: string; notes: string[] } {
  const before = existing ?? '';
  const old = mnemoOf(checkToml(before, file));
  const { entry, notes } = mergedEntry(old, jsonEntry('windsurf', launch), file);
  const table = stringifyToml({ mcp_servers: { [SERVER_KEY]: entry } })
    .trimEnd()
    .split('\n');
  const lines = before.split('\n');
  const ranges = tomlMnemoRanges(lines);
  let out: string[];
  if (ranges.length === 0) {
    const body = before.replace(/\n*$/, '');
    out = body ? [...body.split('\n'), '', ...table] : table;
  } else {
    const [first] = ranges[0]!;
    const drop = new Set<number>();
    for (const [a, b] of ranges) for (let i = a; i < b; i++) drop.add(i);
    out = [];
    for (let i = 0; i < lines.length; i++) {
      if (i === first) out.push(...table, '');
      if (!drop.has(i)) out.push(lines[i]!);
    }
  }
  const text = out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n*$/, '\n');
  // Mnemo's entry written as an inline table or with dotted keys is not where the tables are looked for:
  // the result would hold it twice (invalid) or not at all. Said, never written.
  let placed: unknown;
  try {
    placed = mnemoOf(parseToml(text) as Record<string, unknown>);
  } catch {
    placed = undefined;
  }
  if (!isObject(placed) || placed.command !== launch.command)
    throw new InvalidInputError(
      `Could not place Mnemo's table in ${file}; add it by hand (see docs/mcp.md).`,
    );
  return { text, notes };
}

/** The file's text with Mnemo's entry set to `launch` (everything else kept), and what to know about it. */
export function renderConfig(
  target: ConfigTarget,
  existing: string | undefined,
  launch: McpLaunch,
): { text: string; notes: string[] } {
  if (target.format === 'toml') return renderToml(existing, launch, target.file);
  const agent = target.agent as Exclude<AgentId, 'codex'>;
  const old = servers(readJson(existing, target.file), target)[SERVER_KEY];
  const { entry, notes } = mergedEntry(old, jsonEntry(agent, launch), target.file);
  return { text: editJson(existing, [...target.serversPath, SERVER_KEY], entry), notes };
}

/**
 * The file's text without Mnemo's entry; undefined when nothing else is left (the file can go; never the
 * agent's user configuration that holds more than servers, such as Claude Code's).
 */
export function removeFromConfig(target: ConfigTarget, existing: string): string | undefined {
  if (target.format === 'toml') {
    checkToml(existing, target.file);
    const text = withoutMnemoTables(existing);
    let rest: Record<string, unknown>;
    try {
      rest = parseToml(text) as Record<string, unknown>;
    } catch {
      rest = { [SERVER_KEY]: true, mcp_servers: { [SERVER_KEY]: true } };
    }
    if (mnemoOf(rest) !== undefined)
      throw new InvalidInputError(
        `Could not take Mnemo's table out of ${target.file} (it is not written as a [mcp_servers.mnemo] table); remove it by hand, Mnemo did not change it.`,
      );
    return text.trim() ? text : undefined;
  }
  const root = readJson(existing, target.file);
  if (!(SERVER_KEY in servers(root, target))) return existing;
  const text = editJson(existing, [...target.serversPath, SERVER_KEY], undefined);
  const after = readJson(text, target.file);
  const empty = (v: unknown) =>
    isObject(v) && Object.values(v).every((x) => isObject(x) && Object.keys(x).length === 0);
  return target.serversPath.length === 1 && isObject(after) && Object.keys(after).length <= 1 && empty(after)
    ? undefined
    : text;
}

/** What connecting an agent in a scope would write (nothing is written; fileChange.ts applies it). */
export function planConnect(target: ConfigTarget, launch: McpLaunch): FileChange {
  const { text, notes } = renderConfig(
    target,
    readIfExists(target.file),
    target.scope === 'project' ? PORTABLE_LAUNCH : launch,
  );
  return planChange(target.file, text, [
    ...notes,
    ...(target.scope === 'project'
      ? [
          `${target.file} is meant to be committed: it names only the command \`mnemo mcp\`, which each teammate needs on their PATH; nothing of this machine goes in it.`,
        ]
      : []),
  ]);
}

/** What taking Mnemo's entry out of an agent's configuration would write. */
export function planDisconnect(target: ConfigTarget): FileChange {
  const before = readIfExists(target.file);
  return planChange(target.file, before === undefined ? undefined : removeFromConfig(target, before));
}

// ---------------------------------------------------------------- the instruction-file pointer

/** Instruction files an agent reads, and which agents read each. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'] as const;
export type InstructionFile = (typeof INSTRUCTION_FILES)[number];

/** Which instruction file an agent reads first. */
export function instructionFileFor(agent: AgentId): InstructionFile {
  if (agent === 'claude-code') return 'CLAUDE.md';
  if (agent === 'copilot-cli') return '.github/copilot-instructions.md';
  return 'AGENTS.md';
}

export const POINTER_BEGIN = '<!-- mnemo:pointer:begin (managed by Mnemo; edit outside these markers) -->';
export const POINTER_END = '<!-- mnemo:pointer:end -->';

export const POINTER_TEXT = [
  '## Memory (Mnemo)',
  '',
  'This project keeps its long-term memory in Mnemo, shared by every agent through the `mnemo` MCP server.',
  '',
  '- At the start of every task, call the `recall` tool with the task as the query, and follow what it returns.',
  '- When a decision, setting or convention is made or discovered, call `remember` with one self-contained sentence and `why`.',
  '- When you rely on a recalled memory, call `report` with its id and `used`; when one turns out to be wrong, call `report` with `wrong` and a note (a person reviews it).',
].join('\n');

export function planPointer(
  agent: AgentId,
  projectDir: string,
  file: InstructionFile = instructionFileFor(agent),
): FileChange {
  const path = join(projectDir, file);
  return planChange(path, upsertSection(readIfExists(path), POINTER_BEGIN, POINTER_END, POINTER_TEXT, path));
}
