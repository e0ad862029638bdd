/** Checks and guesses shared by capture, ingest, remember and bulk import. */
import { InvalidInputError } from '../errors';
import { GLOBAL_PROJECT, isSourceType, type Category } from '../model';
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

/** Category for an explicit fact when none is given: preferences/identity -> persona, rules/how-to -> instruction, else episodic. */
export function guessCategory(text: string): Category {
  if (
    /\b(i (always|never|prefer|like|use|am)|my (favou?rite|preference))\b|我(习惯|喜欢|偏好|一般|总是|是)/i.test(
      text,
    )
  )
    return 'persona';
  if (
    /\b(always|never|must|should|don't|do not|use|set|run|rule)\b|必须|不要|应该|设为|设置|规则|流程/i.test(
      text,
    )
  )
    return 'instruction';
  return 'episodic';
}

/** An explicit or imported fact is actionable when it holds a number next to words (a value, a port, a version). */
export function looksActionable(text: string): boolean {
  return /\d/.test(text) && /[A-Za-z\u4e00-\u9fff]{2,}/.test(text);
}
