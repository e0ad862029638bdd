/**
 * `mnemo connect <agent>` and "Mnemo: Connect an Agent…": Mnemo's MCP server entry in each agent's own
 * configuration file, at the location its documentation gives (docs/mcp.md cites each one):
 *
 * | agent       | file (scope)                                                    | format |
 * | claude-code | `<project>/.mcp.json` (project, shared through git)             | JSON `mcpServers` |
 * | codex       | `$CODEX_HOME/config.toml`, default `~/.codex/config.toml` (user) | TOML `[mcp_servers.mnemo]` |
 * | cursor      | `<project>/.cursor/mcp.json` (project)                          | JSON `mcpServers` |
 * | cline       | `<VS Code user dir>/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json` | JSON `mcpServers` + `disabled`, `autoApprove` |
 * | windsurf    | `~/.codeium/windsurf/mcp_config.json` (user)                    | JSON `mcpServers` |
 * | copilot-cli | `$COPILOT_HOME/mcp-config.json`, default `~/.copilot/mcp-config.json` (user) | JSON `mcpServers` + `type: local`, `tools` |
 *
 * The renderers are pure (text in, text out) and idempotent: applying one to its own output changes
 * nothing. Only the `mnemo` entry is touched; everything else in the file is kept. A file that does not
 * parse is never overwritten. Writing keeps one backup of the previous file (`<file>.mnemo-backup`),
 * which `--undo` restores.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { parse as ParseToml } from 'smol-toml' with { 'resolution-mode': 'import' };
// smol-toml ships ESM typings with a CommonJS build; require() gets the CommonJS one.
const { parse: parseToml } = require('smol-toml') as { parse: typeof ParseToml };
import { InvalidInputError } from '../errors';

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

/** How an agent starts Mnemo's MCP server. */
export interface McpLaunch {
  command: string;
  args: string[];
  /** Only non-secret settings (data folder, model): API keys never go into an agent's config file. */
  env?: Record<string, string>;
}

export interface LocationContext {
  /** The project (workspace folder) for project-scoped agents. */
  projectDir: string;
  home?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** VS Code's user folder (`…/Code/User`), known exactly inside the editor; else the platform default. */
  vscodeUserDir?: string;
}

function defaultVscodeUserDir(home: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Code', 'User');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Code', 'User');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Code', 'User');
}

/** Where an agent reads its MCP servers. */
export function configPath(agent: AgentId, ctx: LocationContext): string {
  const home = ctx.home ?? homedir();
  const env = ctx.env ?? process.env;
  const platform = ctx.platform ?? process.platform;
  switch (agent) {
    case 'claude-code':
      return join(ctx.projectDir, '.mcp.json');
    case 'cursor':
      return join(ctx.projectDir, '.cursor', 'mcp.json');
    case 'codex':
      return join(env.CODEX_HOME || join(home, '.codex'), 'config.toml');
    case 'windsurf':
      return join(home, '.codeium', 'windsurf', 'mcp_config.json');
    case 'copilot-cli':
      return join(env.COPILOT_HOME || join(home, '.copilot'), 'mcp-config.json');
    case 'cline':
      return join(
        ctx.vscodeUserDir ?? defaultVscodeUserDir(home, env, platform),
        'globalStorage',
        'saoudrizwan.claude-dev',
        'settings',
        'cline_mcp_settings.json',
      );
  }
}

/** Project-scoped files live in the repository (shared by the team); the others are the user's. */
export function isProjectScoped(agent: AgentId): boolean {
  return agent === 'claude-code' || agent === 'cursor';
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

function parseJsonConfig(text: string | undefined, file: string): Record<string, unknown> {
  if (text === undefined || !text.trim()) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InvalidInputError(
      `${file} is not valid JSON (${(e as Error).message}); fix it or move it away, Mnemo did not change it.`,
    );
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new InvalidInputError(`${file} does not hold a JSON object; Mnemo did not change it.`);
  return data as Record<string, unknown>;
}

function servers(obj: Record<string, unknown>, file: string): Record<string, unknown> {
  const s = obj.mcpServers;
  if (s === undefined) return {};
  if (!s || typeof s !== 'object' || Array.isArray(s))
    throw new InvalidInputError(`"mcpServers" in ${file} is not an object; Mnemo did not change it.`);
  return s as Record<string, unknown>;
}

/** TOML basic string (JSON's escapes are a subset TOML accepts). */
function tomlString(s: string): string {
  return JSON.stringify(s);
}

function tomlTable(launch: McpLaunch): string {
  const lines = [
    `[mcp_servers.${SERVER_KEY}]`,
    `command = ${tomlString(launch.command)}`,
    `args = [${launch.args.map(tomlString).join(', ')}]`,
  ];
  if (launch.env && Object.keys(launch.env).length) {
    lines.push(
      `env = { ${Object.entries(launch.env)
        .map(([k, v]) => `${/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k)} = ${tomlString(v)}`)
        .join(', ')} }`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Line ranges of `[mcp_servers.mnemo]` and its sub-tables in a TOML text. */
function tomlMnemoRanges(lines: string[]): [number, number][] {
  const ranges: [number, number][] = [];
  const header = /^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$/;
  const isMnemo = (name: string) => {
    const n = name.replace(/\s+/g, '').replace(/"mnemo"/g, 'mnemo');
    return n === `mcp_servers.${SERVER_KEY}` || n.startsWith(`mcp_servers.${SERVER_KEY}.`);
  };
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const m = header.exec(lines[i]!);
    if (!m || lines[i]!.trimStart().startsWith('[[')) continue;
    if (start >= 0) {
      ranges.push([start, i]);
      start = -1;
    }
    if (isMnemo(m[1]!)) start = i;
  }
  if (start >= 0) ranges.push([start, lines.length]);
  return ranges;
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

/** The file's text with Mnemo's entry set to `launch` (everything else kept). */
export function renderConfig(
  agent: AgentId,
  existing: string | undefined,
  launch: McpLaunch,
  file = configPath(agent, { projectDir: '.' }),
): string {
  if (agent === 'codex') {
    const before = existing ?? '';
    checkToml(before, file);
    const lines = before.split('\n');
    const ranges = tomlMnemoRanges(lines);
    const table = tomlTable(launch).trimEnd().split('\n');
    let out: string[];
    if (ranges.length === 0) {
      const body = before.replace(/\n*$/, '');
      out = body ? [...body.split('\n'), '', ...table] : table;
    } else {
      const [first] = ranges[0]!;
      const drop = new Set<number>();
      for (const [a, b] of ranges) for (let i = a; i < b; i++) drop.add(i);
      // Keep the blank lines that separated the old table from the next one.
      out = [];
      for (let i = 0; i < lines.length; i++) {
        if (i === first) out.push(...table);
        if (!drop.has(i)) out.push(lines[i]!);
        else if (i > first && lines[i]!.trim() === '' && !drop.has(i + 1)) out.push('');
      }
    }
    const text = out.join('\n').replace(/\n*$/, '\n');
    const parsed = checkToml(text, file) as { mcp_servers?: Record<string, { command?: string }> };
    if (parsed.mcp_servers?.[SERVER_KEY]?.command !== launch.command)
      throw new InvalidInputError(
        `Could not place Mnemo's table in ${file}; add it by hand (see docs/mcp.md).`,
      );
    return text;
  }
  const obj = parseJsonConfig(existing, file);
  const next = { ...obj, mcpServers: { ...servers(obj, file), [SERVER_KEY]: jsonEntry(agent, launch) } };
  return JSON.stringify(next, null, 2) + '\n';
}

/** The file's text without Mnemo's entry; undefined when nothing else is left (the file can go). */
export function removeFromConfig(
  agent: AgentId,
  existing: string,
  file = configPath(agent, { projectDir: '.' }),
): string | undefined {
  if (agent === 'codex') {
    checkToml(existing, file);
    const lines = existing.split('\n');
    const drop = new Set<number>();
    for (const [a, b] of tomlMnemoRanges(lines)) for (let i = a; i < b; i++) drop.add(i);
    const text = lines
      .filter((_l, i) => !drop.has(i))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/\n*$/, '\n');
    return text.trim() ? text : undefined;
  }
  const obj = parseJsonConfig(existing, file);
  const s = { ...servers(obj, file) };
  delete s[SERVER_KEY];
  const next: Record<string, unknown> = { ...obj, mcpServers: s };
  if (Object.keys(s).length === 0 && Object.keys(obj).length === 1) return undefined;
  return JSON.stringify(next, null, 2) + '\n';
}

/** A unified diff of a planned change (what the user sees before anything is written). */
export function unifiedDiff(file: string, before: string | undefined, after: string | undefined): string {
  return createTwoFilesPatch(
    before === undefined ? '/dev/null' : file,
    after === undefined ? '/dev/null' : file,
    before ?? '',
    after ?? '',
    '',
    '',
    { context: 3 },
  );
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

/** Replaces or appends a marker-delimited section Mnemo owns in a Markdown file. Pure and idempotent. */
export function upsertSection(
  existing: string | undefined,
  begin: string,
  end: string,
  body: string,
): string {
  const block = `${begin}\n${body.trimEnd()}\n${end}`;
  const text = existing ?? '';
  const a = text.indexOf(begin);
  const b = a >= 0 ? text.indexOf(end, a) : -1;
  if (a >= 0 && b >= 0) return text.slice(0, a) + block + text.slice(b + end.length);
  const base = text.replace(/\s*$/, '');
  return (base ? `${base}\n\n` : '') + block + '\n';
}

/** The Markdown without Mnemo's section (undefined when nothing else is left). */
export function removeSection(existing: string, begin: string, end: string): string | undefined {
  const a = existing.indexOf(begin);
  const b = a >= 0 ? existing.indexOf(end, a) : -1;
  if (a < 0 || b < 0) return existing;
  const text = (
    existing.slice(0, a).replace(/\s*$/, '') +
    '\n\n' +
    existing.slice(b + end.length).replace(/^\s*/, '')
  ).trim();
  return text ? text + '\n' : undefined;
}

// ---------------------------------------------------------------- planning and writing

export interface FileChange {
  file: string;
  before: string | undefined;
  /** undefined: the file is removed. */
  after: string | undefined;
  changed: boolean;
  diff: string;
}

export function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export function planChange(file: string, after: string | undefined): FileChange {
  const before = readIfExists(file);
  return {
    file,
    before,
    after,
    changed: before !== after,
    diff: before === after ? '' : unifiedDiff(file, before, after),
  };
}

export function planConnect(agent: AgentId, launch: McpLaunch, ctx: LocationContext): FileChange {
  const file = configPath(agent, ctx);
  return planChange(file, renderConfig(agent, readIfExists(file), launch, file));
}

export function planPointer(
  agent: AgentId,
  projectDir: string,
  file: InstructionFile = instructionFileFor(agent),
): FileChange {
  const path = join(projectDir, file);
  return planChange(path, upsertSection(readIfExists(path), POINTER_BEGIN, POINTER_END, POINTER_TEXT));
}

export function backupPath(file: string): string {
  return `${file}.mnemo-backup`;
}

/**
 * Writes a planned change: the previous file (if any) is kept as `<file>.mnemo-backup` first, then the
 * new text is written to a temporary file and renamed over (never a half-written config).
 */
export function applyChange(c: FileChange): void {
  if (!c.changed) return;
  mkdirSync(dirname(c.file), { recursive: true });
  if (c.before !== undefined)
    writeFileSync(backupPath(c.file), c.before, { mode: statSync(c.file).mode & 0o777 });
  else rmSync(backupPath(c.file), { force: true });
  if (c.after === undefined) {
    rmSync(c.file, { force: true });
    return;
  }
  const tmp = `${c.file}.mnemo-tmp-${process.pid}`;
  writeFileSync(tmp, c.after, { mode: c.before !== undefined ? statSync(c.file).mode & 0o777 : 0o644 });
  renameSync(tmp, c.file);
}

/**
 * Undo: restores the backup Mnemo kept, or — when Mnemo created the file or no backup is left — removes
 * only Mnemo's entry (the whole file when nothing else is in it).
 */
export function planUndo(
  file: string,
  remove: (text: string) => string | undefined,
): FileChange & { restore: boolean } {
  const before = readIfExists(file);
  const backup = readIfExists(backupPath(file));
  if (backup !== undefined)
    return {
      file,
      before,
      after: backup,
      changed: before !== backup,
      diff: unifiedDiff(file, before, backup),
      restore: true,
    };
  if (before === undefined)
    return { file, before, after: undefined, changed: false, diff: '', restore: false };
  const after = remove(before);
  return {
    file,
    before,
    after,
    changed: before !== after,
    diff: before === after ? '' : unifiedDiff(file, before, after),
    restore: false,
  };
}

export function applyUndo(c: FileChange & { restore: boolean }): void {
  if (c.changed) {
    if (c.after === undefined) rmSync(c.file, { force: true });
    else {
      const tmp = `${c.file}.mnemo-tmp-${process.pid}`;
      writeFileSync(tmp, c.after);
      renameSync(tmp, c.file);
    }
  }
  if (c.restore || existsSync(backupPath(c.file))) rmSync(backupPath(c.file), { force: true });
}
