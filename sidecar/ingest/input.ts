/** Checks and guesses shared by capture, ingest, remember and bulk import. */
import { InvalidInputError } from '../shared/errors';
import { GLOBAL_PROJECT, isSourceType, type Category } from '../model';
import { capMessage } from '../pipeline/normalize';
import type { SessionInput } from '../pipeline/types';

/** Throws InvalidInputError (one sentence) unless the session has a project, a known source type and text messages. */
export function validateSession(s: SessionInput): void {
  if (!s || typeof s !== 'object')
    throw new InvalidInputError('A session must be an object with project_id, source_type and messages.');
  if (typeof s.project_id !== 'string' || !s.project_id.trim())
    throw new InvalidInputError('The session has no project_id.');
  if (!isSourceType(s.source_type))
    throw new InvalidInputError(`Unknown source_type "${String(s.source_type)}".`);
  if (!Array.isArray(s.messages)) throw new InvalidInputError('The session has no messages array.');
  s.messages.forEach((m, i) => {
    if (!m || typeof m !== 'object' || typeof m.content !== 'string') {
      throw new InvalidInputError(`Message ${i + 1} has no text content.`);
    }
  });
}

/**
 * The session with every message longer than `MAX_KEPT_MESSAGE_CHARS` (pipeline/normalize.ts) cut to its head and tail with a
 * note (`capMessage`), and how many were cut: the first thing done to a validated session, before
 * redaction, so no stage reads more than the cap of one message.
 */
export function capSession<T extends SessionInput>(s: T): { session: T; cut: number } {
  let cut = 0;
  const messages = s.messages.map((m) => {
    const c = capMessage(m.content);
    if (!c.cut) return m;
    cut++;
    return { ...m, content: c.text };
  });
  return { session: cut ? { ...s, messages } : s, cut };
}

/**
 * Refuses a write straight into the global project from a client (capture, ingest, remember, bulk import
 * over JSON-RPC): memories reach global only through the audited promotion (`mnemo/memory/promote`), so
 * no client can plant a memory every project recalls.
 */
export function refuseGlobal(projectIds: readonly unknown[]): void {
  if (projectIds.some((p) => typeof p === 'string' && p.trim().toLowerCase() === GLOBAL_PROJECT))
    throw new InvalidInputError(
      'Memories reach the global project only by promotion; write into a project, then promote what holds everywhere.',
    );
}

/** Preferences and identity ("I always…", "my favourite…", 我习惯…): persona. */
const PERSONA =
  /\b(i (always|never|prefer|like|use|am)|my (favou?rite|preference))\b|我(习惯|喜欢|偏好|一般|总是|是)/i;
/** Rules and how-to words: instruction. */
const RULE =
  /\b(always|never|must|should|don't|do not|use|set|run|rule)\b|必须|不要|应该|设为|设置|规则|流程/i;
/**
 * A line of code or configuration (a selection from an editor): statement ends, assignments, calls,
 * arrows, braces, keywords of common languages, a shell prompt. Reference material, never an event.
 */
const CODE =
  /[;{}]\s*$|=>|\b(const|let|var|function|def|class|import|export|return|public|private|func|fn)\b|^\s*[\w.$[\]'"]+\s*=\s*\S|^\s*[\w.-]+:\s*\S+\s*$|\w\([^)]*\)|^\s*[$#>]\s|^\s*(\/\/|#!|<\/?\w)/m;
/** What happened, when: past events and time words (yesterday, ago, we fixed…, 昨天, 上周…): episodic. */
const EVENT =
  /\b(yesterday|today|tonight|this (morning|afternoon|week)|last (night|week|month|year|time)|ago|happened|we (did|fixed|shipped|released|deployed|found|had|met|moved|migrated|lost)|(was|were) (fixed|broken|down|deployed|released))\b|昨天|今天|上周|上个月|刚才|发生/i;

/**
 * Category for an explicit fact when none is given: preferences/identity -> persona; code, rules and
 * how-to -> instruction; an event -> episodic; anything else is reference knowledge -> instruction.
 */
export function guessCategory(text: string): Category {
  if (CODE.test(text)) return 'instruction';
  if (PERSONA.test(text)) return 'persona';
  if (RULE.test(text)) return 'instruction';
  if (EVENT.test(text)) return 'episodic';
  return 'instruction';
}

/** An explicit or imported fact is actionable when it holds a number next to words (a value, a port, a version). */
export function looksActionable(text: string): boolean {
  return /\d/.test(text) && /[A-Za-z\u4e00-\u9fff]{2,}/.test(text);
}
