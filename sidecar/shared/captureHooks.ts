/**
 * Capture hooks: the agents that announce the end of a session run `mnemo capture --hook <agent>`, so
 * their sessions are learned even while the editor is closed (the command queues the request durably and
 * returns at once; a background `mnemo capture --drain` learns it). Offered by Connect an Agent and
 * `mnemo hooks <agent>`, shown as a diff first, undoable — written with the plan/diff/apply helpers of
 * Connect an Agent (sidecar/shared/connect.ts). Each in the agent's user configuration, where its hooks
 * documentation puts them (docs/capture.md cites each):
 *
 * | agent       | file                                   | events |
 * | claude-code | `~/.claude/settings.json` (`CLAUDE_CONFIG_DIR`) `hooks` | `SessionEnd`, `PreCompact` |
 * | gemini-cli  | `~/.gemini/settings.json` `hooks`      | `SessionEnd` |
 * | copilot-cli | `~/.copilot/hooks/mnemo-capture.json` (a file of Mnemo's own) | `sessionEnd` |
 * | codex       | `~/.codex/config.toml` top-level `notify` (`CODEX_HOME`) | after every turn |
 *
 * Only Mnemo's entries are touched (recognized by `capture --hook`); a file that does not parse is never
 * overwritten; Codex's one `notify` program is not replaced when it is someone else's.
 */
import { join } from 'node:path';
import type { parse as ParseToml } from 'smol-toml' with { 'resolution-mode': 'import' };
// smol-toml ships ESM typings with a CommonJS build; require() gets the CommonJS one.
const { parse: parseToml } = require('smol-toml') as { parse: typeof ParseToml };
import { InvalidInputError } from './errors';
import { planChange, planUndo, readIfExists, type FileChange } from './fileChange';
import { CAPTURE_SOURCE_LABEL } from './agentSources';

export const HOOK_AGENTS = ['claude-code', 'gemini-cli', 'copilot-cli', 'codex'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

export function isHookAgent(v: unknown): v is HookAgent {
  return typeof v === 'string' && (HOOK_AGENTS as readonly string[]).includes(v);
}

/** The marker that makes an entry Mnemo's. */
const MARK = 'capture --hook';

/** How the hook starts this CLI: the program, its arguments before the command (the script), options after it, non-secret environment. */
export interface HookLaunch {
  command: string;
  args: string[];
  /** Options after `capture --hook <agent>` (`--data-dir DIR`). */
  options?: string[];
  env?: Record<string, string>;
}

/** The argument vector after the program. */
function hookArgs(launch: HookLaunch, agent: HookAgent): string[] {
  return [...launch.args, 'capture', '--hook', agent, ...(launch.options ?? [])];
}

/** A POSIX shell word. */
function sh(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The shell command line of the hook (agents run hooks through a shell). */
export function hookCommand(launch: HookLaunch, agent: HookAgent): string {
  const env = Object.entries(launch.env ?? {}).map(([k, v]) => `${k}=${sh(v)}`);
  return [...env, sh(launch.command), ...hookArgs(launch, agent).map(sh)].join(' ');
}

export interface HookContext {
  home: string;
  env: NodeJS.ProcessEnv;
}

export function hookFile(agent: HookAgent, ctx: HookContext): string {
  switch (agent) {
    case 'claude-code':
      return join(ctx.env.CLAUDE_CONFIG_DIR || join(ctx.home, '.claude'), 'settings.json');
    case 'gemini-cli':
      return join(ctx.env.GEMINI_CLI_HOME || ctx.home, '.gemini', 'settings.json');
    case 'copilot-cli':
      return join(ctx.env.COPILOT_HOME || join(ctx.home, '.copilot'), 'hooks', 'mnemo-capture.json');
    case 'codex':
      return join(ctx.env.CODEX_HOME || join(ctx.home, '.codex'), 'config.toml');
  }
}

function parseObject(text: string | undefined, file: string): Record<string, unknown> {
  if (text === undefined || !text.trim()) return {};
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new InvalidInputError(
      `${file} is not valid JSON (${(e as Error).message}); Mnemo did not change it.`,
    );
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new InvalidInputError(`${file} does not hold a JSON object; Mnemo did not change it.`);
  return data as Record<string, unknown>;
}

/** A `hooks.<event>` list of `{matcher, hooks: [{type, command}]}` groups (Claude Code and Gemini CLI). */
type Group = { matcher?: string; hooks?: { command?: string }[] } & Record<string, unknown>;

function isOurs(g: unknown): boolean {
  const hooks = (g as Group)?.hooks;
  return (
    Array.isArray(hooks) && hooks.some((h) => typeof h?.command === 'string' && h.command.includes(MARK))
  );
}

function withEvents(
  obj: Record<string, unknown>,
  file: string,
  events: Record<string, Group | undefined>,
): Record<string, unknown> {
  const hooks = obj.hooks === undefined ? {} : obj.hooks;
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks))
    throw new InvalidInputError(`"hooks" in ${file} is not an object; Mnemo did not change it.`);
  const next: Record<string, unknown> = { ...(hooks as Record<string, unknown>) };
  for (const [event, group] of Object.entries(events)) {
    const list = next[event] === undefined ? [] : next[event];
    if (!Array.isArray(list))
      throw new InvalidInputError(`"hooks.${event}" in ${file} is not a list; Mnemo did not change it.`);
    const kept = list.filter((g) => !isOurs(g));
    const out = group ? [...kept, group] : kept;
    if (out.length) next[event] = out;
    else delete next[event];
  }
  const result: Record<string, unknown> = { ...obj, hooks: next };
  if (Object.keys(next).length === 0) delete result.hooks;
  return result;
}

const TOML_NOTIFY = /^\s*notify\s*=/;

/** config.toml with Mnemo's `notify` set (top level, before the first table) or removed. */
function codexToml(before: string | undefined, argv: string[] | undefined, file: string): string | undefined {
  const text = before ?? '';
  let parsed: Record<string, unknown>;
  try {
    parsed = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new InvalidInputError(
      `${file} is not valid TOML (${(e as Error).message.split('\n')[0]}); Mnemo did not change it.`,
    );
  }
  const current = parsed.notify;
  const ours =
    Array.isArray(current) &&
    current.some((a) => typeof a === 'string' && a === '--hook') &&
    current.includes('capture');
  if (current !== undefined && !ours) {
    if (!argv) return before;
    throw new InvalidInputError(
      `Codex already runs a notify program (${JSON.stringify(current)}); it runs only one, so Mnemo did not replace it. Add "capture --hook codex" to your program, or remove it and try again.`,
    );
  }
  const lines = text.split('\n').filter((l) => !TOML_NOTIFY.test(l));
  if (argv) {
    const entry = `notify = [${argv.map((a) => JSON.stringify(a)).join(', ')}] # Mnemo: learn each session (mnemo hooks codex --undo removes it)`;
    const firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
    lines.splice(firstTable < 0 ? lines.length : firstTable, 0, entry, ...(firstTable < 0 ? [] : ['']));
  }
  const out = lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '')
    .replace(/\n*$/, '\n');
  return out.trim() ? out : undefined;
}

/** Codex runs its notify program without a shell: environment through `env`. */
function codexArgv(launch: HookLaunch): string[] {
  const env = Object.entries(launch.env ?? {}).map(([k, v]) => `${k}=${v}`);
  return [...(env.length ? ['env', ...env] : []), launch.command, ...hookArgs(launch, 'codex')];
}

/** The file's text with Mnemo's capture hook set (`launch`) or removed (`undefined`). */
export function renderHooks(
  agent: HookAgent,
  before: string | undefined,
  launch: HookLaunch | undefined,
  file: string,
): string | undefined {
  const command = launch ? hookCommand(launch, agent) : undefined;
  switch (agent) {
    case 'claude-code': {
      const group = command ? { matcher: '', hooks: [{ type: 'command', command, timeout: 30 }] } : undefined;
      const next = withEvents(parseObject(before, file), file, { SessionEnd: group, PreCompact: group });
      return Object.keys(next).length ? JSON.stringify(next, null, 2) + '\n' : undefined;
    }
    case 'gemini-cli': {
      const group = command
        ? { matcher: '*', hooks: [{ name: 'mnemo-capture', type: 'command', command, timeout: 30_000 }] }
        : undefined;
      const next = withEvents(parseObject(before, file), file, { SessionEnd: group });
      return Object.keys(next).length ? JSON.stringify(next, null, 2) + '\n' : undefined;
    }
    case 'copilot-cli':
      // A file of Mnemo's own in the user's hooks folder: written whole, removed on undo.
      return command
        ? JSON.stringify(
            { version: 1, hooks: { sessionEnd: [{ type: 'command', bash: command, timeoutSec: 30 }] } },
            null,
            2,
          ) + '\n'
        : undefined;
    case 'codex':
      return codexToml(before, launch ? codexArgv(launch) : undefined, file);
  }
}

/** The change that installs the hook (shown as a diff, applied with fileChange.ts `applyChange`). */
export function planHooks(agent: HookAgent, launch: HookLaunch, ctx: HookContext): FileChange {
  const file = hookFile(agent, ctx);
  return planChange(file, renderHooks(agent, readIfExists(file), launch, file));
}

/**
 * The change that removes it: only Mnemo's entry, out of the file as it is now (the person's later edits
 * stay; fileChange.ts `applyUndo`).
 */
export function planHooksUndo(agent: HookAgent, ctx: HookContext): FileChange {
  const file = hookFile(agent, ctx);
  return planUndo(file, (text) => renderHooks(agent, text, undefined, file));
}

/** "Claude Code runs Mnemo's capture at the end of each session." */
export function hookSentence(agent: HookAgent): string {
  return agent === 'codex'
    ? `Codex runs Mnemo's capture after each turn (its notify program).`
    : `${CAPTURE_SOURCE_LABEL[agent]} runs Mnemo's capture at the end of each session${agent === 'claude-code' ? ' and before it compacts' : ''}.`;
}
