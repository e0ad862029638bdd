/**
 * The CLI of agent capture (the rows of cli/commands/capture.ts call these):
 *
 * - `mnemo sources`: the agents found for the current folder, with their session counts; reads no message.
 * - `mnemo capture [--source S]… [--transcript PATH] [--yes]`: without `--yes` only says what it would read;
 *   with it (the person's consent on the command line) learns it and prints one line per agent. By default
 *   every agent found except those switched off in the editor; `--source` names them.
 * - `mnemo capture --hook AGENT`: what an agent's hook runs at the end of a session. It records the request
 *   as a file in the data folder (written whole, then renamed: durable) and starts `mnemo capture --drain` in
 *   the background, then returns at once. A hook of an agent switched off in the editor does nothing.
 * - `mnemo capture --drain`: learns every recorded request (claiming each by a rename, so two never take the
 *   same; a request claimed by a process that died is taken again), at low priority.
 * - `mnemo hooks AGENT [--undo] [--yes]`: installs (or removes) that hook, a diff first (hooks.ts).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { InvalidInputError } from '../shared/errors';
import { applyChange, applyUndo } from '../shared/fileChange';
import { confirmWrite } from '../agents/cliCommands';
import type { SourcesCaptureParams, SourcesCaptureResult, SourcesListResult } from '../protocol';
import {
  CAPTURE_SOURCE_LABEL,
  CAPTURE_SOURCES,
  isCaptureSource,
  type CaptureSourceId,
} from '../shared/agentSources';
import { pidAlive, lowerPriority } from '../util/process';
import { sourceEnv, TranscriptCapture } from './capture';
import { replaceFile } from '../shared/atomicFile';
import {
  HOOK_AGENTS,
  hookSentence,
  isHookAgent,
  planHooks,
  planHooksUndo,
  type HookAgent,
  type HookLaunch,
} from '../shared/captureHooks';
import { readPrefs } from './prefs';
import { listSources } from './room';
import { summaryLine } from '../shared/captureSummary';
import type { SidecarConfig, SidecarConfigInput } from '../config';
import type { MnemoService } from '../service';
import { rolloutOfThread } from './sources/codex';

type Out = (line?: string) => void;

/** A capture request recorded by a hook. */
export interface HookRequest {
  agent: HookAgent;
  /** The transcript the agent named. */
  transcript?: string;
  /** Codex's notify names the thread, not the file. */
  thread?: string;
  /** The session's working folder (a hook without a transcript: its agent's sessions of that folder). */
  cwd?: string;
  /** The session ended (not a per-turn or pre-compaction hook). */
  final: boolean;
  at: string;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

/** What an agent's hook hands over (stdin JSON, or Codex notify's last argument), as a request. */
export function hookRequest(agent: HookAgent, payload: string, now: string): HookRequest {
  let data: Record<string, unknown> = {};
  try {
    data = obj(JSON.parse(payload.trim() || '{}')) ?? {};
  } catch {
    throw new InvalidInputError(
      `The ${CAPTURE_SOURCE_LABEL[agent]} hook did not pass JSON; nothing was recorded.`,
    );
  }
  const event = str(data.hook_event_name) ?? str(data.hookEventName) ?? str(data.type) ?? '';
  const transcript = str(data.transcript_path) ?? str(data.transcriptPath);
  const cwd = str(data.cwd);
  const thread =
    str(data['thread-id']) ?? (agent === 'codex' && !transcript ? str(data.session_id) : undefined);
  const final = agent === 'copilot-cli' || /^(SessionEnd|sessionEnd|Stop)$/.test(event);
  if (!transcript && !thread && !cwd)
    throw new InvalidInputError(
      `The ${CAPTURE_SOURCE_LABEL[agent]} hook named no transcript and no folder; nothing was recorded.`,
    );
  return {
    agent,
    ...(transcript ? { transcript: resolve(transcript) } : {}),
    ...(thread ? { thread } : {}),
    ...(cwd ? { cwd: resolve(cwd) } : {}),
    final,
    at: now,
  };
}

function requestsDir(dataDir: string): string {
  const d = join(dataDir, 'capture', 'requests');
  mkdirSync(d, { recursive: true, mode: 0o700 });
  return d;
}

/** Records a request durably (a file written whole, then renamed into place). */
export function recordRequest(dataDir: string, r: HookRequest): string {
  const name = `${r.at.replace(/[:.]/g, '-')}-${randomUUID()}.json`;
  const file = join(requestsDir(dataDir), name);
  replaceFile(file, JSON.stringify(r));
  return file;
}

/** Claims the next request: renamed to `<name>.<pid>.claimed`, so no other process takes it (one a dead process claimed is taken over). */
export function claimRequest(dataDir: string): { file: string; request: HookRequest } | undefined {
  const dir = requestsDir(dataDir);
  for (const name of readdirSync(dir).sort()) {
    const claimed = /^(.*\.json)\.(\d+)\.claimed$/.exec(name);
    if (!name.endsWith('.json') && !(claimed && !pidAlive(Number(claimed[2])))) continue;
    const base = claimed ? claimed[1]! : name;
    const mine = join(dir, `${base}.${process.pid}.claimed`);
    try {
      renameSync(join(dir, name), mine);
    } catch {
      continue; // another process took it first
    }
    try {
      return { file: mine, request: JSON.parse(readFileSync(mine, 'utf8')) as HookRequest };
    } catch {
      rmSync(mine, { force: true }); // a request that cannot be read cannot be learned
    }
  }
  return undefined;
}

export function listLines(r: SourcesListResult, folder: string): string[] {
  const out = [`Agents' transcripts for ${folder}:`];
  for (const s of r.sources) {
    const choice = s.enabled === undefined ? 'never asked' : s.enabled ? 'on' : 'off';
    out.push(
      s.detected
        ? `  ${s.label.padEnd(14)} ${s.sessions} session${s.sessions === 1 ? '' : 's'} here, ${s.other_sessions} in other folders; ${choice}; learned ${s.captured_messages} message${s.captured_messages === 1 ? '' : 's'} from ${s.captured_sessions} session${s.captured_sessions === 1 ? '' : 's'}${s.last_capture_at ? `, last ${s.last_capture_at}` : ''}`
        : `  ${s.label.padEnd(14)} not found (${s.locations.join(', ')})`,
    );
    if (s.note) out.push(`                 ${s.note}`);
  }
  return out;
}

/** The agents a capture reads: those named, else every one found here that is not switched off in the editor. */
export function chooseSources(named: string[] | undefined, list: SourcesListResult): CaptureSourceId[] {
  if (named?.length) {
    const bad = named.find((s) => !isCaptureSource(s));
    if (bad) throw new InvalidInputError(`Unknown agent "${bad}": use one of ${CAPTURE_SOURCES.join(', ')}.`);
    return named as CaptureSourceId[];
  }
  return list.sources.filter((s) => s.detected && s.enabled !== false).map((s) => s.id as CaptureSourceId);
}

export interface CaptureCli {
  list(p: { folders: string[] }): Promise<SourcesListResult>;
  capture(p: SourcesCaptureParams): Promise<SourcesCaptureResult>;
}

/** `mnemo capture` (not a hook): what it would read, or, with `--yes`, the capture and its summary. */
export async function captureCommand(
  args: { folder: string; sources?: string[]; transcript?: string; yes: boolean; json: boolean },
  svc: <T>(fn: (cli: CaptureCli) => Promise<T>) => Promise<T>,
  list: () => Promise<SourcesListResult>,
  out: Out,
): Promise<number> {
  const found = await list();
  const sources = chooseSources(args.sources, found);
  if (args.transcript && !args.sources?.length)
    throw new InvalidInputError(
      'Name the agent the transcript is from: --source claude-code (or codex, gemini-cli…).',
    );
  if (!args.yes) {
    if (args.transcript)
      out(`Would read ${resolve(args.transcript)} as ${CAPTURE_SOURCE_LABEL[sources[0]!]}.`);
    else
      for (const id of sources) {
        const s = found.sources.find((x) => x.id === id);
        out(`Would read ${s?.sessions ?? 0} ${CAPTURE_SOURCE_LABEL[id]} session(s) of ${args.folder}.`);
      }
    if (!sources.length) out('No agent transcripts were found for this folder.');
    out('Nothing was read; add --yes to capture (your consent to read them).');
    return 0;
  }
  if (!sources.length) {
    out('No agent transcripts were found for this folder; nothing to capture.');
    return 0;
  }
  const r = await svc((cli) =>
    cli.capture({
      folders: [args.folder],
      sources,
      ...(args.transcript ? { transcript: resolve(args.transcript), final: true } : {}),
    }),
  );
  if (args.json) out(JSON.stringify(r, null, 2));
  else
    for (const s of r.sources) {
      out(summaryLine(s));
      for (const p of s.problems) out(`  ${p}`);
    }
  return 0;
}

/** Reads a hook's stdin (an agent pipes JSON and closes it); nothing when stdin is a terminal. */
export function readHookStdin(): string {
  if (process.stdin.isTTY) return '';
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

/** `mnemo capture --hook AGENT`: record the request, start the background learner, return. */
export function hookCommand(
  args: { agent?: string; payload: string; dataDir: string; cliScript: string; forward: string[] },
  now: string,
): number {
  if (!isHookAgent(args.agent)) throw new InvalidInputError(`--hook takes one of ${HOOK_AGENTS.join(', ')}.`);
  if (readPrefs(args.dataDir).sources[args.agent] === false) return 0; // switched off in the editor
  recordRequest(args.dataDir, hookRequest(args.agent, args.payload, now));
  const child = spawn(process.execPath, [args.cliScript, 'capture', '--drain', ...args.forward], {
    detached: true,
    stdio: 'ignore',
    env: process.env,
  });
  child.unref();
  return 0;
}

/** `mnemo capture --drain`: learns every recorded request, then exits. */
export async function drainCommand(
  dataDir: string,
  svc: <T>(fn: (cli: CaptureCli) => Promise<T>) => Promise<T>,
  out: Out,
): Promise<number> {
  lowerPriority(10);
  let n = 0;
  await svc(async (cli) => {
    for (let claim = claimRequest(dataDir); claim; claim = claimRequest(dataDir)) {
      const r = claim.request;
      const env = sourceEnv([]);
      let transcript = r.transcript;
      if (!transcript && r.thread && r.agent === 'codex')
        transcript = (await rolloutOfThread(env, r.thread))?.path;
      const params: SourcesCaptureParams = transcript
        ? { folders: [], sources: [r.agent], transcript, final: r.final }
        : { folders: r.cwd ? [r.cwd] : [], sources: [r.agent], final: r.final };
      if (transcript || r.cwd) {
        const result = await cli.capture(params);
        for (const s of result.sources) out(summaryLine(s));
      }
      rmSync(claim.file, { force: true });
      n++;
    }
  });
  out(`Learned from ${n} hook request${n === 1 ? '' : 's'}.`);
  return 0;
}

/** How a hook starts this very CLI (absolute paths; the data folder when not the default). */
export function cliHookLaunch(dataDir: string | undefined): HookLaunch {
  const script = process.argv[1] ? realpathSync(process.argv[1]) : join(__dirname, 'cli.js');
  return {
    command: process.execPath,
    args: [script],
    options: dataDir ? ['--data-dir', resolve(dataDir)] : [],
  };
}

/** `mnemo hooks AGENT [--undo] [--yes]`. */
export async function hooksCommand(
  args: { agent?: string; undo: boolean; yes: boolean; dataDir?: string },
  out: Out,
): Promise<number> {
  if (!isHookAgent(args.agent))
    throw new InvalidInputError(
      args.agent
        ? `Unknown agent "${args.agent}": hooks exist for ${HOOK_AGENTS.join(', ')}.`
        : `hooks needs an agent: one of ${HOOK_AGENTS.join(', ')}.`,
    );
  const ctx = { home: process.env.HOME || homedir(), env: process.env };
  if (args.undo) {
    const c = planHooksUndo(args.agent, ctx);
    if (await confirmWrite([c], args.yes, out)) {
      applyUndo(c);
      out(`Removed Mnemo's capture hook from ${c.file}.`);
    }
    return 0;
  }
  const c = planHooks(args.agent, cliHookLaunch(args.dataDir), ctx);
  if (await confirmWrite([c], args.yes, out)) {
    applyChange(c);
    out(`${hookSentence(args.agent)} Undo with: mnemo hooks ${args.agent} --undo`);
  }
  return 0;
}

/** The parsed command line the capture commands read. */
export interface CaptureArgs {
  values: {
    source?: string[];
    transcript?: string;
    hook?: string;
    drain?: boolean;
    yes?: boolean;
    json?: boolean;
    undo?: boolean;
    'data-dir'?: string;
    'model-path'?: string;
    'chroma-url'?: string;
  };
  positionals: string[];
  cfg: SidecarConfigInput;
  config: SidecarConfig;
}

/** `mnemo sources`, `mnemo capture`, `mnemo hooks`. */
export async function captureCommands(
  command: 'sources' | 'capture' | 'hooks',
  a: CaptureArgs,
  withService: <T>(fn: (svc: MnemoService) => Promise<T>) => Promise<T>,
  out: Out,
): Promise<number> {
  const { values, positionals, config } = a;
  const folder = process.cwd();
  const runner = new TranscriptCapture({
    dataDir: config.dataDir,
    enqueue: () => Promise.reject(new Error('listing reads no message')),
    clock: () => new Date(),
    log: { info: () => undefined, warn: () => undefined },
  });
  const list = () => listSources(runner, [folder]);
  const svc = <T>(fn: (cli: CaptureCli) => Promise<T>) =>
    withService((s) => fn({ list: (p) => s.sourcesList(p), capture: (p) => s.sourcesCapture(p) }));
  if (command === 'hooks')
    return hooksCommand(
      {
        agent: positionals[0],
        undo: !!values.undo,
        yes: !!values.yes,
        dataDir: values['data-dir'] ?? process.env.MNEMO_DATA_DIR,
      },
      out,
    );
  if (command === 'sources') {
    const r = await list();
    if (values.json) out(JSON.stringify(r, null, 2));
    else for (const l of listLines(r, folder)) out(l);
    return 0;
  }
  if (values.hook) {
    const forward = (['data-dir', 'model-path', 'chroma-url'] as const).flatMap((k) =>
      values[k] ? [`--${k}`, values[k]!] : [],
    );
    // Codex's notify passes its JSON as the last argument; the others pipe it on stdin.
    const payload =
      values.hook === 'codex' && positionals.length ? positionals[positionals.length - 1]! : readHookStdin();
    const script = process.argv[1] ? realpathSync(process.argv[1]) : join(__dirname, 'cli.js');
    return hookCommand(
      { agent: values.hook, payload, dataDir: config.dataDir, cliScript: script, forward },
      new Date().toISOString(),
    );
  }
  if (values.drain) return drainCommand(config.dataDir, svc, out);
  return captureCommand(
    { folder, sources: values.source, transcript: values.transcript, yes: !!values.yes, json: !!values.json },
    svc,
    list,
    out,
  );
}
