/**
 * `mnemo import-rules [PATH]` and "Mnemo: Import Agent Rules…": what agents and teams already wrote —
 * `AGENTS.md`, `CLAUDE.md`, `.github/copilot-instructions.md`, `.cursorrules`, `.cursor/rules/*`, and
 * VS Code's agent memory files — becomes memories of the right project, one per rule, with
 * `file:<path>#L<line>` provenance.
 *
 * Each rule goes through the pipeline: the rules gate (headings, questions and small talk are not rules),
 * redaction, the firewall, dedup and the review queue (service.remember). An import is not a confirmation
 * (docs/design.md, "Trust"): every rule comes in pending, at the `outside` tier, and waits in the review
 * queue grouped by its file until a person confirms it (one by one, or "Confirm All from AGENTS.md", which
 * leaves what the firewall held). Idempotent: a rule whose memory is already stored is skipped, not
 * refreshed. Text inside Mnemo's own managed sections (the agent pointer, promoted memories) is never
 * imported.
 *
 * Reads are bounded: a rules file must be a regular file inside the folder it was found in (no symlink out
 * of it: a link to ~/.netrc or /proc/self/environ is refused), at most {@link MAX_RULES_FILE_BYTES}, read
 * without blocking (a FIFO or a device is refused, never waited on), and at most {@link MAX_RULES_PER_FILE}
 * rules of it are imported.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { memoryId, MAX_MEMORY_CHARS, type Category } from '../model';
import { cutText } from '../shared/text';
import { redactText } from '../pipeline/redact';
import type {
  IngestDecision,
  RememberParams,
  RuleSource,
  RulesImportParams,
  RulesImportResult,
} from '../protocol';
import { NotFoundError, InvalidInputError } from '../shared/errors';
import { gateAgentFact } from './gate';

/** The largest rules file read (1 MiB): an AGENTS.md is a few kilobytes. */
export const MAX_RULES_FILE_BYTES = 1024 * 1024;
/** The most rules imported from one file; the report says how many more there were. */
export const MAX_RULES_PER_FILE = 500;

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

/** Why a rules file is not read, in words a person reads in the report. */
export class RulesFileRefused extends Error {}

/**
 * A rules file's text, read within bounds: its real path (links followed) must be inside `root`, it must be a
 * regular file (opened without following a last link and without blocking, so a FIFO or a device is never
 * waited on), and at most {@link MAX_RULES_FILE_BYTES}.
 *
 * @throws RulesFileRefused with the reason.
 */
export function readRulesFile(file: string, root: string): string {
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(file);
    realRoot = realpathSync(root);
  } catch {
    throw new RulesFileRefused('it cannot be read');
  }
  const r = relative(realRoot, real);
  if (!r || r.startsWith('..') || resolve(realRoot, r) !== real)
    throw new RulesFileRefused(`it links outside ${root}`);
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw new RulesFileRefused('it cannot be opened');
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RulesFileRefused('it is not a regular file');
    if (st.size > MAX_RULES_FILE_BYTES)
      throw new RulesFileRefused(`it is larger than ${MAX_RULES_FILE_BYTES / 1024} KiB`);
    const buf = Buffer.alloc(Math.min(st.size, MAX_RULES_FILE_BYTES) + 1);
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    if (n > MAX_RULES_FILE_BYTES)
      throw new RulesFileRefused(`it is larger than ${MAX_RULES_FILE_BYTES / 1024} KiB`);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** What the import needs of the service: whether a memory is stored, and remember. */
export interface ImportTarget {
  exists(id: string): Promise<boolean>;
  remember(p: RememberParams): Promise<IngestDecision>;
}

/** The import's target on the service itself (the CLI, `mnemo/rules/import`): not found is no; any other failure is the import's. */
export function serviceTarget(svc: {
  get(id: string): Promise<unknown>;
  remember(p: RememberParams): Promise<IngestDecision>;
}): ImportTarget {
  return {
    exists: (id) =>
      svc.get(id).then(
        () => true,
        (e: unknown) => {
          if (e instanceof NotFoundError) return false;
          throw e;
        },
      ),
    remember: (p) => svc.remember(p),
  };
}

/** The most files one `mnemo/rules/import` names (a workspace has a handful). */
const MAX_SOURCES = 1000;
const KINDS: readonly string[] = ['instructions', 'agent-memory'];

/** The sources of a `mnemo/rules/import` request, checked: absolute paths, a kind, a project. */
function validSources(p: RulesImportParams | undefined): RuleSource[] {
  const sources = p?.sources;
  if (!Array.isArray(sources) || sources.length === 0)
    throw new InvalidInputError('Import agent rules needs the files to read (sources), a non-empty list.');
  if (sources.length > MAX_SOURCES)
    throw new InvalidInputError(`Import agent rules reads at most ${MAX_SOURCES} files at once.`);
  for (const src of sources as unknown[]) {
    const x = src as Partial<RuleSource> | null;
    const ok =
      !!x &&
      typeof x.file === 'string' &&
      isAbsolute(x.file) &&
      typeof x.root === 'string' &&
      isAbsolute(x.root) &&
      typeof x.ref === 'string' &&
      typeof x.project_id === 'string' &&
      x.project_id.trim() !== '' &&
      KINDS.includes(x.kind as string);
    if (!ok)
      throw new InvalidInputError(
        'Each rules file needs an absolute file and root, a ref, a kind (instructions or agent-memory) and a project_id.',
      );
  }
  return sources;
}

/** `mnemo/rules/import`: the extension found the files; here they are read, gated, redacted and stored. */
export function importRulesRequest(target: ImportTarget, p: RulesImportParams): Promise<RulesImportResult> {
  const sources = validSources(p);
  return importRules(target, sources, { by: typeof p.by === 'string' && p.by ? p.by : 'mnemo' });
}

export async function importRules(
  target: ImportTarget,
  sources: RuleSource[],
  opts: { by: string; category?: Category; read?: (src: RuleSource) => string } = { by: 'mnemo' },
): Promise<RulesImportResult> {
  const read = opts.read ?? ((src: RuleSource) => readRulesFile(src.file, src.root));
  const report: RulesImportResult = {
    files: [],
    refused_files: [],
    skipped_rules: 0,
    stored: 0,
    pending: 0,
    refreshed: 0,
    unchanged: 0,
    refused: 0,
    items: [],
  };
  for (const src of sources) {
    let text: string;
    try {
      text = read(src);
    } catch (e) {
      if (!(e instanceof RulesFileRefused)) throw e;
      report.refused_files.push({ file: src.ref, reason: e.message });
      continue;
    }
    report.files.push(src.ref);
    const rules = parseRules(text);
    report.skipped_rules += Math.max(0, rules.length - MAX_RULES_PER_FILE);
    for (const rule of rules.slice(0, MAX_RULES_PER_FILE)) {
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
      // An import is not a confirmation: a file's rules are outside content until a person confirms them.
      const d = await target.remember({
        text: rule.text,
        project_id: src.project_id,
        category: opts.category ?? gate.category,
        source_type: 'import',
        source_ref: [source_ref],
        added_by: opts.by,
        pending: true,
        tier: 'outside',
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
