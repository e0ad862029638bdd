/**
 * The hand-written building blocks of the recall eval set (eval/generate.ts assembles them into
 * eval/data/*.json). A conversation is written as turns in speaking order; the generator adds message ids,
 * timestamps, per-turn labels and a few filler turns from eval/blocks/fillers.ts.
 *
 * A turn is `"A: text"` or `"B: text"` (junk: small talk, hedges, venting, reactions, questions) or
 * `"A#label: text"` (fact-bearing; `label` names it for questions) or `"A#: text"` (fact-bearing, no
 * question asks about it).
 */
export type Category = 'single-hop' | 'multi-hop' | 'temporal' | 'preference';

export interface Speaker {
  name: string;
  role: 'user' | 'assistant';
}

export interface SessionBlock {
  /** UTC ISO-8601 time of the first turn. */
  at: string;
  turns: string[];
}

export interface QuestionBlock {
  category: Category;
  question: string;
  /** The expected answer, as a person would give it. */
  answer: string;
  /** Labels of the evidence turns, space-separated. */
  evidence: string;
  /**
   * Tokens that must appear in the evidence (each in some evidence turn, every evidence turn holding at
   * least one), `|`-separated, case-insensitive. Default: the answer itself.
   */
  key?: string;
  /** Label of the older turn this question's fact replaced (the question asks for the current value). */
  supersedes?: string;
}

export interface ConversationBlock {
  id: string;
  lang: 'en' | 'zh';
  /** One line saying who talks about what. */
  topic: string;
  a: Speaker;
  b: Speaker;
  /** Filler turns drawn from the pool per session (default 4). */
  fillers?: number;
  sessions: SessionBlock[];
  questions: QuestionBlock[];
}

/** Shorthand for a question. */
export function q(
  category: Category,
  question: string,
  answer: string,
  evidence: string,
  opts: { key?: string; supersedes?: string } = {},
): QuestionBlock {
  return { category, question, answer, evidence, ...opts };
}
