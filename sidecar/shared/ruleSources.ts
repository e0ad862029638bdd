/**
 * Where the rules agents and teams already wrote are found: a repository's instruction files (`AGENTS.md`,
 * `CLAUDE.md`, `.github/copilot-instructions.md`, `.cursorrules`, `.cursor/rules/*`) and VS Code's agent
 * memory folders. Both processes list them — the extension for Import Agent Rules and its first-run welcome,
 * the CLI for `mnemo import-rules` — and the sidecar reads, gates and stores what they found
 * (sidecar/agents/rulesImport.ts, `mnemo/rules/import`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { GLOBAL_PROJECT } from '../model';
import type { RuleSource } from '../protocol';

/** The instruction files of a repository, in the order they are read. */
export const RULE_FILES = [
  'AGENTS.md',
  'CLAUDE.md',
  '.github/copilot-instructions.md',
  '.cursorrules',
] as const;

function listMd(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => /\.(md|mdc|txt)$/i.test(n))
      .sort()
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

export interface DiscoverOptions {
  /** The project folder and its id. */
  projectDir: string;
  projectId: string;
  /** VS Code's repository memory folder of this workspace (`…/GitHub.copilot-chat/memory-tool/memories/repo`). */
  repoMemoryDir?: string;
  /** VS Code's user memory folder (`…/globalStorage/github.copilot-chat/memory-tool/memories`): global memories. */
  userMemoryDir?: string;
}

/** The files to import from a project folder (and VS Code's memory folders when given). */
export function discoverRuleSources(o: DiscoverOptions): RuleSource[] {
  const dir = resolve(o.projectDir);
  const ref = (f: string) => {
    const r = relative(dir, f);
    return r && !r.startsWith('..') ? r.split(sep).join('/') : f;
  };
  const out: RuleSource[] = [];
  // What exists is listed; whether it may be read is decided when it is read (readRulesFile), and said.
  for (const name of RULE_FILES) {
    const f = join(dir, name);
    if (existsSync(f))
      out.push({ file: f, root: dir, ref: ref(f), kind: 'instructions', project_id: o.projectId });
  }
  for (const f of listMd(join(dir, '.cursor', 'rules')))
    out.push({ file: f, root: dir, ref: ref(f), kind: 'instructions', project_id: o.projectId });
  if (o.repoMemoryDir)
    for (const f of listMd(o.repoMemoryDir))
      out.push({ file: f, root: o.repoMemoryDir, ref: f, kind: 'agent-memory', project_id: o.projectId });
  // User-scope memory applies in every workspace: it becomes global (recalled in every project once confirmed).
  if (o.userMemoryDir)
    for (const f of listMd(o.userMemoryDir))
      out.push({ file: f, root: o.userMemoryDir, ref: f, kind: 'agent-memory', project_id: GLOBAL_PROJECT });
  return out;
}

/** One file given on the command line: a rules file of the project, or a memory file. */
export function sourceForFile(file: string, projectDir: string, projectId: string): RuleSource {
  const f = resolve(file);
  const r = relative(resolve(projectDir), f);
  const inside = r && !r.startsWith('..');
  const known =
    inside &&
    ((RULE_FILES as readonly string[]).includes(r.split(sep).join('/')) ||
      r.split(sep).slice(0, 2).join('/') === '.cursor/rules');
  return {
    file: f,
    // A file named on the command line is read from its own folder at most (a link out of it is refused).
    root: inside ? resolve(projectDir) : dirname(f),
    ref: inside ? r.split(sep).join('/') : f,
    kind: known || basename(f) === '.cursorrules' ? 'instructions' : 'agent-memory',
    project_id: projectId,
  };
}
