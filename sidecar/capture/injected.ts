/**
 * No feedback loop: text Mnemo itself put in front of an agent — a recall block (sidecar/recall/format.ts:
 * fenced by `<mnemo-recall> …` and `</mnemo-recall>`, removed whole with everything between; and, in
 * transcripts older than the fence or a block cut short, its items `[Memory ID: mem_…] Source: …` and
 * `[Evidence] <date> · … (msg:…)`, in English or Chinese), what Mnemo's MCP tools answered, the MCP server's instructions and the pointer
 * section Connect an Agent writes into instruction files — is recognized in a captured transcript and
 * never learned again, as a memory or as a turn. test/unit/captureInjected.test.ts formats real blocks
 * with format.ts and checks they are recognized, so the two cannot drift apart.
 */
import { POINTER_BEGIN, POINTER_END } from '../shared/connect';
import { FENCE } from '../recall/format';
import { MCP_INSTRUCTIONS, MCP_NOTHING_RECALLED } from '../shared/mnemoText';

/** The head line of a recalled memory (format.ts `formatMemory`), English or Chinese. */
const MEMORY_HEAD =
  /^\s*(?:\[Memory ID: mem_[0-9a-f]{16}\] Source: .* \| Project: .* \| Time: |【记忆ID: mem_[0-9a-f]{16}】 来源：.* \| 项目：.* \| 时间：)/;
/** The head line of an evidence excerpt (format.ts `formatEvidence`). */
const EVIDENCE_HEAD = /^\s*(?:\[Evidence\] |【原话】)\d{4}-\d{2}-\d{2} · .*\(msg:[^)]*\)/;
/** What Mnemo's MCP `recall` answers when nothing was recalled; the @mnemo participant and the LM tool likewise. */
const NOTHING_RECALLED = new RegExp(
  `^\\s*(?:${escape(MCP_NOTHING_RECALLED)}|No memories recalled(?: for "[^\\n]*")?\\.)`,
);

/**
 * A fenced recall block: its opening line (the fence and what it says the records are) to its closing tag.
 * Recalled text cannot close it early (format.ts defangs the tags inside it, and quotes every line).
 */
const FENCE_TAG = escape(FENCE.open.en.slice(0, FENCE.open.en.indexOf('>') + 1));
const FENCED = new RegExp(
  `^[ \\t]*${FENCE_TAG}[^\\n]*$[\\s\\S]*?^[ \\t]*${escape(FENCE.close)}[ \\t\\r]*$`,
  'gm',
);
/** An opening or closing fence line whose other half was cut off (its items are removed one by one). */
const FENCE_LINE = new RegExp(`^[ \\t]*(?:${FENCE_TAG}[^\\n]*|${escape(FENCE.close)}[ \\t\\r]*)$`, 'gm');

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface Stripped {
  /** The text without what Mnemo injected (trimmed; empty when it was all Mnemo's). */
  text: string;
  /** How many pieces of Mnemo's text were removed. */
  removed: number;
}

/**
 * The text with every recall block (fenced, or its items one by one), "nothing recalled" answer, the MCP instructions and Mnemo's
 * pointer section removed. A block item runs from its head line to the next blank line (or the next item).
 */
export function stripInjected(text: string): Stripped {
  let removed = 0;
  let rest = text;
  if (rest.includes(MCP_INSTRUCTIONS)) {
    rest = rest.split(MCP_INSTRUCTIONS).join('');
    removed++;
  }
  const a = rest.indexOf(POINTER_BEGIN);
  const b = a >= 0 ? rest.indexOf(POINTER_END, a) : -1;
  if (a >= 0 && b >= 0) {
    rest = rest.slice(0, a) + rest.slice(b + POINTER_END.length);
    removed++;
  }
  rest = rest.replace(FENCED, (block) => {
    // Counted as the records it held (at least one).
    removed += Math.max(
      1,
      block.split('\n').filter((l) => MEMORY_HEAD.test(l) || EVIDENCE_HEAD.test(l)).length,
    );
    return '';
  });
  rest = rest.replace(FENCE_LINE, () => {
    removed++;
    return '';
  });
  if (!/mem_[0-9a-f]{16}|msg:|No memories recalled/.test(rest))
    return { text: rest.replace(/\n{3,}/g, '\n\n').trim(), removed };
  const kept: string[] = [];
  let inItem = false;
  for (const line of rest.split('\n')) {
    if (MEMORY_HEAD.test(line) || EVIDENCE_HEAD.test(line) || NOTHING_RECALLED.test(line)) {
      inItem = !NOTHING_RECALLED.test(line);
      removed++;
      continue;
    }
    if (inItem) {
      if (line.trim() === '') inItem = false;
      continue;
    }
    kept.push(line);
  }
  return {
    text: kept
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    removed,
  };
}

/**
 * Mnemo's own tools as agents name them (Claude Code `mcp__mnemo__recall`, VS Code `mnemo_recall`, MCP
 * clients `mnemo__recall`, `mnemo-recall`, `mnemo.recall`): their calls and results are Mnemo's own text
 * (recall, search, get) or were already learned through Mnemo (remember, mark_wrong), never again here.
 */
export function isMnemoTool(name: string): boolean {
  return /^(?:mcp[_-]{1,2})?mnemo(?:[_.:/-]{1,2})(?:recall|remember|mark_wrong|search|get)$/i.test(
    name.trim(),
  );
}
