/**
 * The firewall stage (docs/design.md, "Trust: the firewall at write"): instruction-shaped text from below
 * the `person` tier never becomes an active memory. Each message of a session (after redaction) and each
 * candidate is inspected with the injection lexicon (lexicon/injection.ts): text that tells an AI to ignore
 * its instructions or addresses one, forges a chat role or a Mnemo record, pipes a download into a shell,
 * sends secrets or data to an address, loads a remote image, hides characters or carries a base64 blob.
 * What it finds is held: every candidate from a held message waits in the review queue with the reason in
 * words, a held message with no candidate becomes one (so a person can clear it), and the message's turn
 * is not quoted as evidence until a person confirms a memory taken from it (recall/recall.ts).
 *
 * Also sets every candidate's tier: the lowest tier of the messages it came from (model.ts `Tier`), or the
 * tier the caller gave (never raised). Pure: no store, no model.
 */
import { lowerTier, MAX_MEMORY_CHARS, tierOfRole, type SourceType, type Tier } from '../model';
import { cutText, joinsEmoji, withoutInvisible } from '../shared/text';
import {
  ADDRESS_AI_EN,
  ADDRESS_AI_ZH,
  BASE64_BLOB,
  DATA_LINK,
  EXFIL_COMMAND,
  EXFIL_EN,
  EXFIL_ZH,
  IMAGE_BEACON,
  INVISIBLE,
  MNEMO_FORGERY,
  OVERRIDE_EN,
  OVERRIDE_ZH,
  PIPE_TO_SHELL,
  ROLE_HEADERS,
  ROLE_MARKERS,
} from './lexicon/injection';
import type { Candidate, Guard, NormalizedMessage } from './types';

/** What the firewall looks for, one signal per lexicon table. */
export type FirewallSignal =
  | 'override'
  | 'addresses-ai'
  | 'role-marker'
  | 'forges-mnemo'
  | 'pipe-to-shell'
  | 'exfiltration-command'
  | 'exfiltration-request'
  | 'data-link'
  | 'image-beacon'
  | 'hidden-characters'
  | 'base64-blob';

export interface FirewallFinding {
  signal: FirewallSignal;
  /** What matched, cut short (or, for hidden characters, what they are and any text they hide). */
  excerpt: string;
}

/** How each signal reads in a reason a person sees in the review queue. */
const SAYS: Record<FirewallSignal, string> = {
  override: 'tells an AI to ignore or replace its instructions',
  'addresses-ai': 'addresses an AI agent reading it',
  'role-marker': 'forges a chat role marker',
  'forges-mnemo': "imitates Mnemo's records or tools",
  'pipe-to-shell': 'pipes a download into a shell',
  'exfiltration-command': 'sends local secrets over the network',
  'exfiltration-request': 'asks to send secrets or data to an address',
  'data-link': 'has a link that carries data in its query',
  'image-beacon': 'loads a remote image when shown (a beacon)',
  'hidden-characters': 'holds hidden characters',
  'base64-blob': 'holds a base64 blob',
};

const TABLES: ReadonlyArray<readonly [FirewallSignal, RegExp]> = [
  ['override', OVERRIDE_EN],
  ['override', OVERRIDE_ZH],
  ['addresses-ai', ADDRESS_AI_EN],
  ['addresses-ai', ADDRESS_AI_ZH],
  ['role-marker', ROLE_MARKERS],
  ['role-marker', ROLE_HEADERS],
  ['forges-mnemo', MNEMO_FORGERY],
  ['pipe-to-shell', PIPE_TO_SHELL],
  ['exfiltration-command', EXFIL_COMMAND],
  ['exfiltration-request', EXFIL_EN],
  ['exfiltration-request', EXFIL_ZH],
  ['data-link', DATA_LINK],
  ['image-beacon', IMAGE_BEACON],
];

/** The longest text inspected whole; a longer one is inspected in overlapping windows (one pass each). */
const WINDOW = 8000;
const OVERLAP = 400;

export interface InspectOptions {
  /**
   * The text is a rules file written for agents (AGENTS.md, .cursorrules): addressing an agent is what it
   * is for, so that signal alone does not hold it. Default false.
   */
  forAgents?: boolean;
}

/** The instruction-shaped parts of a text, each signal once. Empty for a clean text. */
export function inspectText(text: string, opts: InspectOptions = {}): FirewallFinding[] {
  const out: FirewallFinding[] = [];
  const seen = new Set<FirewallSignal>();
  const hidden = hiddenCharacters(text);
  if (hidden) {
    out.push({ signal: 'hidden-characters', excerpt: hidden });
    seen.add('hidden-characters');
  }
  // Hidden characters do not hide a phrase from the tables: they are read as if absent.
  const visible = withoutInvisible(text).text;
  for (let at = 0; at < visible.length; at += WINDOW - OVERLAP) {
    const part = visible.slice(at, at + WINDOW);
    for (const [signal, re] of TABLES) {
      if (seen.has(signal) || (signal === 'addresses-ai' && opts.forAgents)) continue;
      const m = re.exec(part);
      if (m) {
        seen.add(signal);
        out.push({ signal, excerpt: excerptOf(m[0]) });
      }
    }
    if (!seen.has('base64-blob')) {
      const b = BASE64_BLOB.exec(part);
      if (b) {
        seen.add('base64-blob');
        out.push({ signal: 'base64-blob', excerpt: `${b[0].length} characters` });
      }
    }
    if (at + WINDOW >= visible.length) break;
  }
  return out;
}

const excerptOf = (s: string): string => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 60 ? `${cutText(one, 57)}…` : one;
};

/**
 * What a text hides, in words ("2 zero-width, 1 bidi control, tag text "ignore…""), or undefined when it
 * hides nothing: a zero-width joiner inside an emoji sequence and a byte-order mark at the start are how
 * ordinary text is written.
 */
export function hiddenCharacters(text: string): string | undefined {
  const parts: string[] = [];
  const tags = [...text.matchAll(INVISIBLE.tag)].map((m) => m[0]);
  if (tags.length) {
    // A tag character mirrors an ASCII one 0xE0000 above it: show what it spells.
    const spelled = tags
      .map((t) => String.fromCodePoint(t.codePointAt(0)! - 0xe0000))
      .join('')
      .replace(/[^\x20-\x7e]/g, '');
    parts.push(
      `${tags.length} tag character${tags.length === 1 ? '' : 's'}${spelled ? ` spelling "${excerptOf(spelled)}"` : ''}`,
    );
  }
  const bidi = text.match(INVISIBLE.bidi)?.length ?? 0;
  if (bidi) parts.push(`${bidi} bidi control${bidi === 1 ? '' : 's'}`);
  let zeroWidth = 0;
  for (const m of text.matchAll(INVISIBLE.zeroWidth)) {
    if (m[0] === '\uFEFF' && m.index === 0) continue;
    if (m[0] === '\u200D' && joinsEmoji(text, m.index)) continue;
    zeroWidth++;
  }
  if (zeroWidth) parts.push(`${zeroWidth} zero-width`);
  const selectors = text.match(INVISIBLE.selector)?.length ?? 0;
  if (selectors) parts.push(`${selectors} variation selector${selectors === 1 ? '' : 's'}`);
  return parts.length ? parts.join(', ') : undefined;
}

/** The reason a person reads in the review queue: what the text does, with what matched. */
export function holdReason(findings: FirewallFinding[], from: Tier): string {
  const what = findings.map((f) => `${SAYS[f.signal]} ("${f.excerpt}")`).join('; ');
  return `held: ${TIER_WORDS[from]} that ${what}`;
}

/** A tier in the words of a hold reason: "a tool result that …". */
const TIER_WORDS: Record<Tier, string> = {
  person: 'text',
  'own-turn': 'a message',
  agent: "an agent's message",
  outside: 'outside content',
};

/** Inspects a text unless a person vouches for it; the reason when it is held. */
export function holdOf(text: string, tier: Tier, opts: InspectOptions = {}): string | undefined {
  if (tier === 'person') return undefined;
  const findings = inspectText(text, opts);
  return findings.length ? holdReason(findings, tier) : undefined;
}

/**
 * The firewall over a session's (redacted) messages: each one's tier from its role, capped by `cap` (what
 * the caller vouches for at most), and the reason each held one is held.
 */
export function inspectMessages(messages: NormalizedMessage[], cap: Tier = 'own-turn'): Guard {
  const tiers = new Map<string, Tier>();
  const held = new Map<string, string>();
  for (const m of messages) {
    const tier = lowerTier(tierOfRole(m.role), cap);
    tiers.set(m.id, lowerTier(tier, tiers.get(m.id) ?? tier));
    const reason = holdOf(m.content, tier);
    if (reason && !held.has(m.id)) held.set(m.id, reason);
  }
  return { tiers, held };
}

/**
 * Sets each candidate's tier (the lowest of its messages', else `cap`) and holds the candidates of a held
 * message, or whose own text is instruction-shaped (an LLM may have rephrased one), for review. A held
 * message no candidate came from becomes a candidate of its own, so a person can clear it.
 */
export function guardCandidates(
  candidates: Candidate[],
  guard: Guard,
  messages: NormalizedMessage[],
  sourceType: SourceType,
  cap: Tier = 'own-turn',
): Candidate[] {
  // A candidate no message is known for (an LLM's paraphrase) is only as trusted as the session's least trusted turn.
  const floor = [...guard.tiers.values()].reduce<Tier>(lowerTier, cap);
  const out = candidates.map((c) => {
    const tier = c.message_ids.length
      ? c.message_ids.reduce<Tier>((t, id) => lowerTier(t, guard.tiers.get(id) ?? t), c.tier ?? cap)
      : lowerTier(c.tier ?? cap, floor);
    const fromHeld = c.message_ids.map((id) => guard.held.get(id)).find((r) => r !== undefined);
    const held = fromHeld ?? holdOf(c.text, tier);
    return held ? hold({ ...c, tier }, held) : { ...c, tier };
  });
  const covered = new Set(out.flatMap((c) => c.message_ids));
  for (const m of messages) {
    const reason = guard.held.get(m.id);
    if (!reason || covered.has(m.id)) continue;
    covered.add(m.id);
    out.push(
      hold(
        {
          text: cutText(m.content.replace(/\s+/g, ' ').trim(), MAX_MEMORY_CHARS),
          category: 'episodic',
          source_type: sourceType,
          is_actionable: false,
          source_ref: [`msg:${m.id}`],
          message_ids: [m.id],
          reason: 'firewall: a held turn, for a person to clear',
          score: 0,
          confidence: 0.5,
          pending: true,
          tier: guard.tiers.get(m.id) ?? cap,
          ...(m.speaker ? { speaker: m.speaker } : {}),
          ...(m.undated ? {} : { occurred_at: m.timestamp }),
        },
        reason,
      ),
    );
  }
  return out;
}

function hold(c: Candidate, reason: string): Candidate {
  return { ...c, pending: true, pending_reason: reason, held: reason };
}
