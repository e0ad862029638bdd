/**
 * The CLI side of sharing memory with agents: `mnemo connect`, `mnemo import-rules`,
 * `mnemo promote-to-repo` and `mnemo export --format`. The rows of cli/commands/agents.ts call these.
 * Every file change is printed as a unified diff first and written only after a yes (a prompt at a
 * terminal, or --yes); each write keeps a backup of the previous file.
 */
import { chmodSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { InvalidInputError } from '../shared/errors';
import { STATUSES, type Memory } from '../model';
import type { MnemoService } from '../service';
import {
  AGENTS,
  AGENT_LABEL,
  INSTRUCTION_FILES,
  POINTER_BEGIN,
  POINTER_END,
  SCOPE_LABEL,
  configTarget,
  instructionFileFor,
  isAgent,
  isScope,
  planConnect,
  planDisconnect,
  planPointer,
  scopesOf,
  type ConnectScope,
  type InstructionFile,
  type McpLaunch,
} from '../shared/connect';
import {
  applyChange,
  applyUndo,
  backupFolder,
  planChange,
  planUndo,
  readIfExists,
  removeSection,
  type FileChange,
} from '../shared/fileChange';
import { promotedIds, promotionChoices, renderPromoted } from '../shared/promote';
import { isReadableFormat, renderReadable, READABLE_FORMATS } from '../shared/readableExport';
import { discoverRuleSources, sourceForFile } from '../shared/ruleSources';
import type { RulesImportResult } from '../protocol';
import { importRules, MAX_RULES_PER_FILE, serviceTarget } from './rulesImport';
import { cutText, oneLine } from '../shared/text';

type Out = (line?: string) => void;
type WithService = <T>(fn: (svc: MnemoService) => Promise<T>) => Promise<T>;

/** How an agent starts this very CLI's MCP server (absolute paths; the data folder when not the default). */
export function cliLaunch(dataDir: string | undefined): McpLaunch {
  const script = process.argv[1] ? realpathSync(process.argv[1]) : join(__dirname, 'cli.js');
  return {
    command: process.execPath,
    args: [script, 'mcp', ...(dataDir ? ['--data-dir', resolve(dataDir)] : [])],
  };
}

/** Prints the diffs and asks (a prompt at a terminal, or `yes`); shared by connect, promote and capture hooks. */
export async function confirmWrite(changes: FileChange[], yes: boolean, out: Out): Promise<boolean> {
  const pending = changes.filter((c) => c.changed);
  if (pending.length === 0) {
    out('Already up to date; nothing to write.');
    return false;
  }
  for (const c of pending) {
    out(c.diff.trimEnd());
    for (const n of c.notes ?? []) out(`Note: ${n}`);
  }
  if (yes) return true;
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    out('Nothing was written; run again with --yes to write it.');
    return false;
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const a = await rl.question(`Write ${pending.map((c) => c.file).join(', ')}? [y/N] `);
    if (/^y(es)?$/i.test(a.trim())) return true;
    out('Nothing was written.');
    return false;
  } finally {
    rl.close();
  }
}

function instructionFile(v: string | undefined, fallback: InstructionFile): InstructionFile {
  if (v === undefined) return fallback;
  if (!(INSTRUCTION_FILES as readonly string[]).includes(v))
    throw new InvalidInputError(`--file must be one of ${INSTRUCTION_FILES.join(', ')}.`);
  return v as InstructionFile;
}

/** The scope asked for, else the agent's first (a per-user one: the committed file only when asked for). */
function connectScope(agent: (typeof AGENTS)[number], v: string | undefined): ConnectScope {
  if (v === undefined) return scopesOf(agent)[0]!;
  if (!isScope(v) || !scopesOf(agent).includes(v))
    throw new InvalidInputError(
      `${AGENT_LABEL[agent]} can be connected with --scope ${scopesOf(agent).join(' or ')} (${scopesOf(agent)
        .map((s) => `${s}: ${SCOPE_LABEL[s]}`)
        .join('; ')}).`,
    );
  return v;
}

export async function connectCommand(
  args: {
    agent?: string;
    projectDir: string;
    dataDir?: string;
    scope?: string;
    yes: boolean;
    undo: boolean;
    pointer: boolean;
    file?: string;
  },
  out: Out,
): Promise<void> {
  if (!isAgent(args.agent)) {
    throw new InvalidInputError(
      args.agent
        ? `Unknown agent "${args.agent}": use one of ${AGENTS.join(', ')}.`
        : `connect needs an agent: one of ${AGENTS.join(', ')}.`,
    );
  }
  const agent = args.agent;
  const target = configTarget(agent, { projectDir: args.projectDir }, connectScope(agent, args.scope));
  const file = instructionFile(args.file, instructionFileFor(agent));
  const pointerPath = join(args.projectDir, file);
  if (args.undo) {
    const changes = [planDisconnect(target)];
    if (args.pointer)
      changes.push(planUndo(pointerPath, (t) => removeSection(t, POINTER_BEGIN, POINTER_END, pointerPath)));
    if (await confirmWrite(changes, args.yes, out)) {
      changes.forEach(applyUndo);
      out(
        `Undone: ${changes
          .filter((c) => c.changed)
          .map((c) => c.file)
          .join(', ')} (the files as they were are in ${backupFolder()}).`,
      );
    }
    return;
  }
  const changes = [planConnect(target, cliLaunch(args.dataDir))];
  if (args.pointer) changes.push(planPointer(agent, args.projectDir, file));
  if (await confirmWrite(changes, args.yes, out)) {
    changes.forEach(applyChange);
    out(
      `${AGENT_LABEL[agent]} now starts Mnemo's MCP server (${target.file}, ${target.scope} scope: ${SCOPE_LABEL[target.scope]}); restart it to pick the change up. Undo with: mnemo connect ${agent} --scope ${target.scope} --undo${args.pointer ? ' --pointer' : ''}`,
    );
  }
}

export function describeImport(r: RulesImportResult, out: Out, explain: boolean): void {
  out(
    `Imported from ${r.files.length ? r.files.join(', ') : 'no rule files'}: ${r.pending} waiting for review, ${r.stored} stored, ${r.refreshed} refreshed, ${r.unchanged} already imported, ${r.refused} not rules. An import is not a confirmation: confirm them in the review queue (mnemo review, mnemo confirm --from FILE).`,
  );
  for (const f of r.refused_files) out(`  not read: ${f.file} (${f.reason})`);
  if (r.skipped_rules)
    out(`  ${r.skipped_rules} rules past the first ${MAX_RULES_PER_FILE} of a file were not imported.`);
  for (const i of r.items) {
    if (i.outcome === 'unchanged' && !explain) continue;
    if (i.outcome === 'refused' && !explain) continue;
    out(
      `  ${i.outcome.padEnd(9)} ${i.source_ref}  ${i.text.length > 90 ? oneLine(cutText(i.text, 89)) + '…' : oneLine(i.text)}${explain ? `\n            why: ${oneLine(i.reason)}` : ''}`,
    );
  }
}

export async function importRulesCommand(
  args: {
    path?: string;
    projectId: string;
    memoriesDir?: string;
    by: string;
    json: boolean;
    explain: boolean;
  },
  withService: WithService,
  out: Out,
): Promise<void> {
  const target = resolve(args.path ?? '.');
  let st;
  try {
    st = statSync(target);
  } catch {
    throw new InvalidInputError(`Cannot read ${args.path ?? '.'}: no such file or folder.`);
  }
  const sources = st.isDirectory()
    ? discoverRuleSources({ projectDir: target, projectId: args.projectId, repoMemoryDir: args.memoriesDir })
    : [sourceForFile(target, process.cwd(), args.projectId)];
  if (sources.length === 0)
    throw new InvalidInputError(
      `No AGENTS.md, CLAUDE.md, .github/copilot-instructions.md, .cursorrules or .cursor/rules/* in ${target}.`,
    );
  const report = await withService((svc) => importRules(serviceTarget(svc), sources, { by: args.by }));
  if (args.json) out(JSON.stringify(report, null, 2));
  else describeImport(report, out, args.explain);
}

export async function promoteCommand(
  args: { projectDir: string; projectId: string; file?: string; ids?: string; yes: boolean; by: string },
  withService: WithService,
  out: Out,
): Promise<void> {
  const file = instructionFile(args.file, 'AGENTS.md');
  const path = join(args.projectDir, file);
  await withService(async (svc) => {
    const all = (await svc.list({ project_id: args.projectId, status: ['confirmed'], limit: 10_000 })).items;
    // Rules imported from this very file are in it already: offering them back would write them twice.
    const { offer: confirmed, already } = promotionChoices(all, file);
    if (already.length)
      out(
        `Left out ${already.length} already in ${file} (imported from line ${already
          .map((a) => a.line)
          .sort((a, b) => a - b)
          .join(', ')}).`,
      );
    const wanted = args.ids
      ? args.ids
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : confirmed.map((m) => m.id);
    const byId = new Map(confirmed.map((m) => [m.id, m]));
    for (const id of wanted) {
      const there = already.find((a) => a.memory.id === id);
      if (there)
        throw new InvalidInputError(
          `${id} was imported from ${file} (line ${there.line}): it is there already.`,
        );
      if (!byId.has(id))
        throw new InvalidInputError(
          `${id} is not a confirmed memory of ${args.projectId}; only confirmed memories are promoted.`,
        );
    }
    const before = readIfExists(path);
    // Memories already in the section stay (when still confirmed), the new ones join them.
    const keep = promotedIds(before).filter((id) => byId.has(id));
    const chosen = [...new Set([...keep, ...wanted])].map((id) => byId.get(id)!);
    if (chosen.length === 0)
      throw new InvalidInputError(
        `${args.projectId} has no confirmed memories to promote; confirm some in the Mnemo view or with mnemo confirm ID.`,
      );
    const change = planChange(path, renderPromoted(before, chosen, path));
    if (!(await confirmWrite([change], args.yes, out))) return;
    applyChange(change);
    const ref = `file:${file}`;
    let n = 0;
    for (const m of chosen) {
      if (m.source_ref.includes(ref)) continue;
      await svc.update({ id: m.id, patch: { source_ref: [...m.source_ref, ref] }, by: args.by });
      n++;
    }
    out(
      `Wrote ${chosen.length} memories into Mnemo's section of ${path} (${n} newly promoted; audited). Review and commit it with git.`,
    );
  });
}

export async function readableExportCommand(
  args: { format?: string; out?: string; projectId?: string; includeWrong: boolean; by: string },
  withService: WithService,
  out: Out,
): Promise<void> {
  if (!isReadableFormat(args.format))
    throw new InvalidInputError(`--format must be ${READABLE_FORMATS.join(' or ')}.`);
  if (!args.out)
    throw new InvalidInputError(`export --format ${args.format} needs --out FILE (or - for stdout).`);
  const format = args.format;
  const status = STATUSES.filter((s) => args.includeWrong || s !== 'wrong');
  const memories: Memory[] = await withService(async (svc) => {
    const r = await svc.list({ project_id: args.projectId, status, limit: 10_000 });
    const at = new Date().toISOString();
    svc.audit.append([
      {
        at,
        action: 'export',
        project_id: args.projectId,
        by: args.by,
        note: `readable export (${format}, not encrypted): ${r.items.length} memories to ${args.out === '-' ? 'stdout' : resolve(args.out!)}`,
      },
    ]);
    return r.items;
  });
  const text = renderReadable(memories, format, { at: new Date().toISOString(), by: args.by });
  if (args.out === '-') {
    process.stdout.write(text);
    return;
  }
  const file = isAbsolute(args.out) ? args.out : resolve(args.out);
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  out(
    `Wrote ${file}: ${memories.length} memories as ${format}. Secrets were redacted when stored, but this file is NOT encrypted; use mnemo export --out for an encrypted backup.`,
  );
}
