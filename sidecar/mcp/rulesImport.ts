/**
 * `mnemo import-rules [PATH]` and "Mnemo: Import Agent Rules…": what agents and teams already wrote —
 * `AGENTS.md`, `CLAUDE.md`, `.github/copilot-instructions.md`, `.cursorrules`, `.cursor/rules/*`, and
 * VS Code's agent memory files — becomes memories of the right project, one per rule, with
 * `file:<path>#L<line>` provenance.
 *
 * Each rule goes through the pipeline: the rules gate (headings, questions and small talk are not rules),
 * redaction, dedup and the review queue (service.remember). Rules from instruction files a team keeps in
 * its repository are confirmed by whoever imports them (unless `review` is asked); memory files an agent
 * wrote wait for review. Idempotent: a rule whose memory is already stored is skipped, not refreshed.
 * Text inside Mnemo's own managed sections (the agent pointer, promoted memories) is never imported.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { memoryId, GLOBAL_PROJECT, MAX_MEMORY_CHARS, type Category } from '../model';
import { cutText } from '../shared/text';
import { redactText } from '../pipeline/redact';
import type { IngestDecision, RememberParams } from '../protocol';
import { gateAgentFact } from './gate';

/** The instruction files of a repository, in the order they are read. */
export const RULE_FILES = [
  'AGENTS.md',
  'CLAUDE.md',
  '.github/copilot-instructions.md',
  '.cursorrules',
] as const;

export interface RuleLine {
  text: string;
  /** 1-based line of the rule's first line. */
  line: number;
}

/** Mnemo's own sections (pointer, promoted memories): begin marker prefix. */
const MANAGED_BEGIN = /<!--\s*mnemo:[a-z]+:begin\b/;
const MANAGED_END = /<!--\s*mnemo:[a-z]+:end\s*-->/;

/**
 * The rules of a Markdown (or plain-text rules) file: every list item and every paragraph, joined across
 * its wrapped lines, with the line it starts on. Headings, code blocks, YAML front matter, HTML comments,
 * tables and Mnemo's managed sections are skipped. Pure.
 */
export function parseRules(text: string): RuleLine[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: RuleLine[] = [];
  let cur: RuleLine | undefined;
  const flush = () => {
    if (cur) {
      const t = cur.text.replace(/\s+/g, ' ').trim();
      if (t) out.push({ text: t, line: cur.line });
    }
    cur = undefined;
  };
  let i = 0;
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((l, j) => j > 0 && l.trim() === '---');
    if (end > 0) i = end + 1;
  }
  let fence: string | undefined;
  let managed = false;
  let comment = false;
  for (; i < lines.length; i++) {
    const raw = lines[i]!;
    const l = raw.trim();
    if (managed) {
      if (MANAGED_END.test(l)) managed = false;
      continue;
    }
    if (MANAGED_BEGIN.test(l)) {
      flush();
      managed = !MANAGED_END.test(l);
      continue;
    }
    if (fence) {
      if (l.startsWith(fence)) fence = undefined;
      continue;
    }
    const f = /^(```|~~~)/.exec(l);
    if (f) {
      flush();
      fence = f[1];
      continue;
    }
    if (comment) {
      if (l.includes('-->')) comment = false;
      continue;
    }
    if (l.startsWith('<!--')) {
      flush();
      comment = !l.includes('-->');
      continue;
    }
    if (!l || /^#{1,6}\s/.test(l) || /^\|/.test(l) || /^([-*_])\s*\1\s*\1[\s\-*_]*$/.test(l)) {
      flush();
      continue;
    }
    const item = /^(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$/.exec(l);
    if (item) {
      flush();
      cur = { text: item[1]!, line: i + 1 };
      continue;
    }
    if (cur) cur.text += ' ' + l;
    else cur = { text: l, line: i + 1 };
  }
  flush();
  // Markdown emphasis and inline code marks are not part of the rule's words.
  return out.map((r) => ({ ...r, text: r.text.replace(/\*\*(.+?)\*\*/g, '$1').replace(/__(.+?)__/g, '$1') }));
}

export type RuleSourceKind = 'instructions' | 'agent-memory';

export interface RuleSource {
  /** Absolute path. */
  file: string;
  /** How it is named in provenance: relative to the project folder, else absolute. */
  ref: string;
  kind: RuleSourceKind;
  /** The project its rules belong to. */
  project_id: string;
}

function listMd(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => /\.(md|mdc|txt)$/i.test(n))
      .sort()
      .map((n) => join(dir, n))
      .filter((f) => statSync(f).isFile());
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
  for (const name of RULE_FILES) {
    const f = join(dir, name);
    if (existsSync(f) && statSync(f).isFile())
      out.push({ file: f, ref: ref(f), kind: 'instructions', project_id: o.projectId });
  }
  for (const f of listMd(join(dir, '.cursor', 'rules')))
    out.push({ file: f, ref: ref(f), kind: 'instructions', project_id: o.projectId });
  if (o.repoMemoryDir)
    for (const f of listMd(o.repoMemoryDir))
      out.push({ file: f, ref: f, kind: 'agent-memory', project_id: o.projectId });
  // User-scope memory applies in every workspace: it becomes global (recalled in every project).
  if (o.userMemoryDir)
    for (const f of listMd(o.userMemoryDir))
      out.push({ file: f, ref: f, kind: 'agent-memory', project_id: GLOBAL_PROJECT });
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
    ref: inside ? r.split(sep).join('/') : f,
    kind: known || basename(f) === '.cursorrules' ? 'instructions' : 'agent-memory',
    project_id: projectId,
  };
}

/** What the import needs of the service: the CLI passes MnemoService, the extension its sidecar client. */
export interface ImportTarget {
  exists(id: string): Promise<boolean>;
  remember(p: RememberParams): Promise<IngestDecision>;
}

export interface ImportItem {
  source_ref: string;
  text: string;
  outcome: IngestDecision['outcome'] | 'unchanged' | 'refused';
  id?: string;
  reason: string;
}

export interface ImportReport {
  files: string[];
  stored: number;
  pending: number;
  refreshed: number;
  unchanged: number;
  refused: number;
  items: ImportItem[];
}

export async function importRules(
  target: ImportTarget,
  sources: RuleSource[],
  opts: { by: string; review?: boolean; category?: Category; read?: (file: string) => string } = {
    by: 'mnemo',
  },
): Promise<ImportReport> {
  const read = opts.read ?? ((f: string) => readFileSync(f, 'utf8'));
  const report: ImportReport = {
    files: [],
    stored: 0,
    pending: 0,
    refreshed: 0,
    unchanged: 0,
    refused: 0,
    items: [],
  };
  for (const src of sources) {
    report.files.push(src.ref);
    for (const rule of parseRules(read(src.file))) {
      const source_ref = `file:${src.ref}#L${rule.line}`;
      const gate = gateAgentFact(rule.text);
      if (!gate.keep) {
        report.refused++;
        report.items.push({ source_ref, text: rule.text, outcome: 'refused', reason: gate.reason });
        continue;
      }
      const text = cutText(rule.text, MAX_MEMORY_CHARS); // remember cuts the same way and says so
      const id = memoryId(src.project_id, (await redactText(text)).text);
      if (await target.exists(id)) {
        report.unchanged++;
        report.items.push({ source_ref, text, outcome: 'unchanged', id, reason: 'already imported' });
        continue;
      }
      const d = await target.remember({
        text: rule.text,
        project_id: src.project_id,
        category: opts.category ?? gate.category,
        source_type: 'import',
        source_ref: [source_ref],
        added_by: opts.by,
        pending: opts.review || src.kind === 'agent-memory',
      });
      if (d.outcome === 'stored') report.stored++;
      else if (d.outcome === 'pending') report.pending++;
      else if (d.outcome === 'refreshed') report.refreshed++;
      else report.refused++;
      report.items.push({ source_ref, text, outcome: d.outcome, id: d.id, reason: d.reason });
    }
  }
  return report;
}
