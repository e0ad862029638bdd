/**
 * Stage (after score, for sessions captured from an agent's transcript — a session whose `source_ref`
 * names the agent, `agent:<id>`): the agent's words are judged more strictly than the person's
 * (docs/design.md, Capture from agents).
 *
 * - The person's request for one change ("Add a --dry-run flag …", lexicon/agentTasks.ts) is not a memory
 *   unless it also holds a value, a reason or a rule for every time.
 * - From the agent's shell, a failure is kept with the changed command that fixed it, not with a rerun of the
 *   same command or a run of other commands before it passed (the agent's edits fixed it, unseen).
 * - A candidate from the agent's own turns (or its tools) is kept only when it scores at least
 *   {@link AGENT_MIN_SCORE}, and never waits for review: the person's queue is for what they said and asked
 *   to keep, not for each claim an agent made. Whatever is dropped is still kept as a turn (evidence).
 *
 * Pure: no I/O. Every dropped candidate carries the rule that dropped it.
 */
import type { Tier } from '../model';
import { agentOfRefs } from '../shared/agentSources';
import { AGENT_TASK_HEAD, LASTING_MARK } from './lexicon';
import type { Candidate, Dropped, SessionInput } from './types';

/**
 * The most a session vouches for (the firewall's cap, pipeline/firewall.ts). A captured agent's shell session
 * is the agent's: its commands are `user` messages only so the terminal stage can read them, but the agent
 * typed them, so they are of the agent tier (their output, `tool`, stays outside content). In an agent's chat
 * the person's turns are their own (`own-turn`), the agent's `agent`, its tools' `outside`, by role.
 */
export function sessionTierCap(input: Pick<SessionInput, 'source_ref' | 'source_type'>): Tier {
  const agent = agentOfRefs(input.source_ref ?? []);
  return agent && (input.source_type === 'terminal' || input.source_type === 'troubleshooting_log')
    ? 'agent'
    : 'own-turn';
}

/** The lowest score a candidate from an agent's turn needs (0..10) to be kept. */
export const AGENT_MIN_SCORE = 6.5;

/** A number that is a value (not a list index or a year alone). */
const VALUE = /\d/;

export function gateAgentCandidates(
  candidates: Candidate[],
  input: Pick<SessionInput, 'source_ref'>,
): { candidates: Candidate[]; dropped: Dropped[] } {
  const agent = agentOfRefs(input.source_ref ?? []);
  if (!agent) return { candidates, dropped: [] };
  const kept: Candidate[] = [];
  const dropped: Dropped[] = [];
  const drop = (c: Candidate, reason: string) =>
    dropped.push({ text: c.text, reason, ...(c.message_ids[0] ? { message_id: c.message_ids[0] } : {}) });
  for (const c of candidates) {
    const role = c.features?.role ?? (c.reason.startsWith('rule:terminal-fix') ? 'tool' : 'user');
    if (role === 'user') {
      const explicit = c.features?.explicit_request === true;
      if (
        !explicit &&
        AGENT_TASK_HEAD.test(c.text.trim()) &&
        !VALUE.test(c.text) &&
        !LASTING_MARK.test(c.text)
      ) {
        drop(c, `drop:agent-task(a request for one change, to ${agent})`);
        continue;
      }
      kept.push(c);
      continue;
    }
    if (c.reason.startsWith('rule:terminal-fix')) {
      // A failure and the changed command that fixed it is a lesson ("`pnpm test` failed; `pnpm test --
      // --runInBand` fixed it"). An agent's loop of edits and reruns is not: the same command passing again,
      // or after other commands, was fixed by edits the terminal never saw.
      if (c.fix === 'retry' || c.fix === 'steps') {
        drop(
          c,
          `drop:agent-rerun(${c.fix === 'retry' ? 'the same command passed again' : 'passed after other commands'}; ${agent}'s edits in between are the fix)`,
        );
        continue;
      }
      kept.push(c); // a failure and its fix, from what ran: the terminal stage's own evidence
      continue;
    }
    if (c.score < AGENT_MIN_SCORE) {
      drop(c, `drop:agent-claim(score ${c.score} < ${AGENT_MIN_SCORE}, said by ${agent})`);
      continue;
    }
    if (c.pending) {
      drop(c, `drop:agent-unreviewed(${c.pending_reason ?? 'would wait for review'}, said by ${agent})`);
      continue;
    }
    kept.push(c);
  }
  return { candidates: kept, dropped };
}
