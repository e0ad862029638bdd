/**
 * Stage: extract (LLM) (docs/design.md, Extraction with an LLM): a language model reads the (already
 * redacted) session and answers strict JSON `{"persona": [...], "episodic": [...], "instruction": [...]}`,
 * with the project's known memories sent with the prompt so it skips them. Then {@link mergeRuleAndLlm} reconciles
 * the model's facts with the rule stage's: agreement raises confidence, a fact only one side found
 * waits in the review queue with both sides' reasons.
 *
 * Never throws into the pipeline: every failure comes back as `error`, one sentence.
 */
import { errorMessage } from '../shared/errors';
import { estimateTokens } from '../llm/vscodeLm';
import { LlmUnavailableError, type LlmMessage, type LlmProvider, type LlmUsage } from '../llm/types';
import { CATEGORIES, normalizeText, type Category, type SourceType } from '../model';
import { cutTextStart } from '../shared/text';
import { MAX_MESSAGE_CHARS, MAX_SESSION_CHARS, normalizeSession, splitPieces } from './normalize';
import { redactText } from './redact';
import { findNumbers, findTechTerms, weightedLength } from './rules';
import { scoreCandidates } from './score';
import type { Candidate, CandidateFeatures, Dropped, NormalizedMessage, SessionInput } from './types';

/**
 * The field report's extraction prompt, verbatim (docs/design.md, Extraction with an LLM), plus two lines:
 * redaction placeholders and the answer's language.
 */
export const EXTRACTION_SYSTEM_PROMPT = [
  '你是一个记忆提取助手。从对话中提取值得长期记住的信息。',
  '严格按以下JSON格式输出，不要输出其他任何内容：',
  '{"persona":["字符串1","字符串2"],"episodic":["字符串1"],"instruction":["字符串1"]}',
  '',
  '分类规则：',
  '- persona: 用户偏好、习惯、身份、性格特征、沟通风格',
  '- episodic: 具体事件和行动',
  '- instruction: 工作流程、规则、纠正、技术方案',
  '',
  '关键规则：',
  '1. 只提取新的、具体的、有价值的信息',
  '2. 数组中每个元素必须是纯字符串，不要用对象',
  '3. 没有有价值的信息就全部输出空数组',
  '4. 每条不超过80字，用简洁陈述句',
  '5. 不要重复同一条信息',
  '6. 偏好类信息归persona，不要归episodic',
  '7. [REDACTED:...] 是已删除的敏感信息，原样保留，不要猜测或还原',
  'Write each item in the language of the conversation (keep the three JSON keys in English).',
].join('\n');

/** Header of the known-memories block appended to the system prompt (docs/design.md, Extraction with an LLM). */
export const KNOWN_HEADER = '已知记忆（不要重复提取这些内容）：';

export const EXTRACT_DEFAULTS = {
  temperature: 0.1,
  max_tokens: 800,
  /** Known memories injected at most (docs/design.md: 15 items, 500 characters, each cut to 100). */
  maxKnown: 15,
  maxKnownChars: 500,
  maxKnownItemChars: 100,
  /** The conversation sent: its last 4000 characters (docs/design.md, Capture and the extraction window). */
  maxConversationChars: MAX_SESSION_CHARS,
  /** One item at most (docs/design.md, Extraction with an LLM). */
  maxItemChars: 80,
  /** Shorter items are dropped (docs/design.md: items under 5 characters). */
  minItemChars: 5,
} as const;

export interface ExtractOptions {
  /** Source type given to the candidates. Default `chat`. */
  source_type?: SourceType;
  /** Default 0.1. */
  temperature?: number;
  /** Default 800. */
  max_tokens?: number;
  signal?: AbortSignal;
  /** Candidates scoring under this go to review (score stage). Default 4. */
  reviewScoreThreshold?: number;
  /** Default 4000. */
  maxConversationChars?: number;
}

export interface ExtractResult {
  candidates: Candidate[];
  /** Tokens spent (zeros when no call was made); `estimated` when the provider reported none. */
  usage: LlmUsage;
  /** One sentence when extraction failed; `candidates` is then empty. */
  error?: string;
  /** Why no call was made (nothing to send). */
  skipped?: string;
  /** Secrets the last-guard redaction still found in what was about to be sent (should be 0). */
  guard_redactions: number;
  /** The model's raw answer, for `--explain` and debugging. */
  raw?: string;
}

const ZERO: LlmUsage = { prompt_tokens: 0, completion_tokens: 0 };

// ------------------------------------------------------------------------------ prompt

const PREFIX: Record<NormalizedMessage['role'], string> = {
  user: '用户',
  assistant: '助手',
  tool: '工具',
  system: '系统',
};

/** The conversation as docs/design.md (Extraction with an LLM) sends it: `用户：...` / `助手：...` lines, the last `maxChars` characters. */
export function formatConversation(
  messages: readonly NormalizedMessage[],
  maxChars: number = EXTRACT_DEFAULTS.maxConversationChars,
): string {
  const lines = messages
    .filter((m) => m.role !== 'system' && m.content.trim())
    .map((m) => `${PREFIX[m.role]}：${m.content.trim()}`);
  const text = lines.join('\n');
  return cutTextStart(text, maxChars);
}

/** The known-memories block: at most 15 items, each cut to 100 characters, joined by `；`, cut to 500. */
export function formatKnown(known: readonly string[]): string {
  const parts = known
    .map((k) => (typeof k === 'string' ? k.replace(/\s+/g, ' ').trim() : ''))
    .filter((k) => k.length > 0)
    .slice(0, EXTRACT_DEFAULTS.maxKnown)
    .map((k) => [...k].slice(0, EXTRACT_DEFAULTS.maxKnownItemChars).join(''));
  return [...parts.join('；')].slice(0, EXTRACT_DEFAULTS.maxKnownChars).join('');
}

/** The messages sent to the model (before the last-guard redaction). */
export function buildExtractionPrompt(
  messages: readonly NormalizedMessage[],
  known: readonly string[],
  maxChars?: number,
): LlmMessage[] {
  const k = formatKnown(known);
  const system = k ? `${EXTRACTION_SYSTEM_PROMPT}\n\n${KNOWN_HEADER}\n${k}` : EXTRACTION_SYSTEM_PROMPT;
  return [
    { role: 'system', content: system },
    { role: 'user', content: formatConversation(messages, maxChars) },
  ];
}

// ------------------------------------------------------------------------------ parsing

export type Extraction = Record<Category, string[]>;

const KEY_ALIASES: Readonly<Record<string, Category>> = {
  persona: 'persona',
  personas: 'persona',
  episodic: 'episodic',
  episode: 'episodic',
  episodes: 'episodic',
  instruction: 'instruction',
  instructions: 'instruction',
};
const TEXT_KEYS = ['text', 'content', 'memory', 'value', 'fact', 'item', 'description', 'summary'];
const NOTHING = /^(?:无|暂无|没有|空|none|n\/a|null|nothing|-|—)$/i;

/**
 * Reads the model's answer tolerantly: JSON alone, inside prose or a ```json fence, or after a
 * `<think>` block; single quotes, unquoted keys and trailing commas; objects where strings were asked
 * (`{"text": ...}`, `{"content": ...}`); a string where a list was asked; extra keys ignored. Items are
 * trimmed, list markers removed, cut to 80 characters, items under 5 dropped, duplicates (also across
 * categories) removed. Returns undefined when no object with any of the three keys is found.
 */
export function parseExtraction(answer: string): Extraction | undefined {
  const text = answer
    .replace(/^\uFEFF/, '')
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .trim();
  const attempts: string[] = [text];
  for (const m of text.matchAll(/```[a-zA-Z]*\s*\n?([\s\S]*?)```/g)) attempts.push(m[1]!.trim());
  attempts.push(...topLevelObjects(text));
  for (const a of attempts) {
    const value = parseLoose(a);
    const ex = value === undefined ? undefined : toExtraction(value);
    if (ex) return ex;
  }
  return undefined;
}

function parseLoose(s: string): unknown {
  if (!s) return undefined;
  try {
    return JSON.parse(s);
  } catch {
    // fall through to the relaxed reading
  }
  try {
    return JSON.parse(relaxJson(s));
  } catch {
    return undefined;
  }
}

/** `{...}` spans at nesting depth 0, respecting strings in either quote. */
function topLevelObjects(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || (c === "'" && depth > 0)) quote = c;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0) out.push(s.slice(start, i + 1));
    }
  }
  return out;
}

/** Single-quoted strings -> JSON strings, bare keys quoted, trailing commas removed. String contents untouched. */
export function relaxJson(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < s.length && s[j] !== c) j += s[j] === '\\' ? 2 : 1;
      const body = s.slice(i + 1, Math.min(j, s.length));
      // Raw line breaks are not allowed in JSON strings; a single-quoted body is decoded and re-encoded.
      out += c === '"' ? `"${body.replace(/\r?\n/g, '\\n')}"` : JSON.stringify(decodeEscapes(body));
      i = j;
      continue;
    }
    if (c === ',' && /^\s*[}\]]/.test(s.slice(i + 1))) continue; // trailing comma
    const bare = /^([A-Za-z_][A-Za-z0-9_]*)(\s*:)/.exec(s.slice(i));
    if (bare && (out === '' || /[{,\s]$/.test(out))) {
      out += `"${bare[1]}"${bare[2]}`;
      i += bare[0].length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

function decodeEscapes(body: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
  return body.replace(/\\(u[0-9a-fA-F]{4}|[\s\S])/g, (_m, x: string) =>
    x.length === 5 ? String.fromCharCode(parseInt(x.slice(1), 16)) : (map[x] ?? x),
  );
}

function toExtraction(value: unknown): Extraction | undefined {
  const ex: Extraction = { persona: [], episodic: [], instruction: [] };
  let found = false;
  if (Array.isArray(value)) {
    // [{"category": "persona", "text": "..."}]: a shape some models prefer.
    for (const x of value) {
      const cat =
        x && typeof x === 'object'
          ? KEY_ALIASES[
              String(
                (x as { category?: unknown; type?: unknown }).category ??
                  (x as { type?: unknown }).type ??
                  '',
              ).toLowerCase()
            ]
          : undefined;
      if (!cat) continue;
      found = true;
      ex[cat].push(...coerceItems(x));
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const cat = KEY_ALIASES[k.trim().toLowerCase()];
      if (!cat) continue; // extra keys ignored
      found = true;
      ex[cat].push(...coerceItems(v));
    }
  }
  if (!found) return undefined;
  const seen = new Set<string>();
  for (const cat of CATEGORIES) {
    ex[cat] = ex[cat].map(cleanItem).filter((t) => {
      if ([...t].length < EXTRACT_DEFAULTS.minItemChars || NOTHING.test(t)) return false;
      const key = normalizeText(t);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  return ex;
}

function coerceItems(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  for (const x of list) {
    if (typeof x === 'string') out.push(x);
    else if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      const key = TEXT_KEYS.find((k) => typeof o[k] === 'string');
      if (key) out.push(o[key] as string);
    }
  }
  return out;
}

function cleanItem(s: string): string {
  const t = s
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:[-*•·]|\d{1,2}[.)、])\s*/, '')
    .replace(/^["'“‘「](.*)["'”’」]$/, '$1')
    .trim();
  const chars = [...t];
  return chars.length > EXTRACT_DEFAULTS.maxItemChars
    ? chars.slice(0, EXTRACT_DEFAULTS.maxItemChars).join('').trim()
    : t;
}

// ------------------------------------------------------------------------------ text overlap

const EN_STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'use',
  'uses',
  'used',
  'using',
  'to',
  'of',
  'in',
  'on',
  'is',
  'are',
  'be',
  'a',
  'an',
  'we',
  'our',
  'my',
  'i',
  'it',
  'its',
  'this',
  'that',
  'user',
  'users',
  'project',
  'prefers',
  'prefer',
  'should',
  'at',
  'as',
  'by',
  'or',
]);
const CJK_RUN = /[\u3400-\u9fff\uf900-\ufaff]+/g;
const SUBJECT = /^(?:用户|the user|user)\s*/i;

/** Words of a fact for overlap: ASCII words and numbers (stopwords out), Chinese as character bigrams. */
export function factTokens(text: string): Set<string> {
  const t = text.normalize('NFKC').toLowerCase().replace(SUBJECT, '');
  const out = new Set<string>();
  for (const m of t.matchAll(/[a-z0-9][a-z0-9_+#.-]*/g)) {
    const w = m[0].replace(/[.-]+$/, '');
    if (w && !EN_STOP.has(w) && (w.length >= 2 || /\d/.test(w))) out.add(w);
  }
  for (const m of t.matchAll(CJK_RUN)) {
    const run = [...m[0]];
    if (run.length === 1) out.add(run[0]!);
    for (let i = 0; i + 1 < run.length; i++) out.add(run[i]! + run[i + 1]!);
  }
  return out;
}

function numbersOf(text: string): Set<string> {
  return new Set([...text.normalize('NFKC').matchAll(/\d+(?:\.\d+)*/g)].map((m) => m[0]));
}

/**
 * How strongly two facts say the same thing by their words: 1 when one contains the other, else the
 * overlap coefficient of their {@link factTokens} when at least 3 words are shared (2 for very short
 * facts), 0 when their numbers disagree (`Python 3.11` is not `Python 3.12`).
 */
export function textAgreement(a: string, b: string): number {
  const na = normalizeText(a).replace(SUBJECT, '');
  const nb = normalizeText(b).replace(SUBJECT, '');
  const na0 = numbersOf(a);
  const nb0 = numbersOf(b);
  if (na0.size && nb0.size && ![...na0].some((n) => nb0.has(n))) return 0;
  const shorter = na.length <= nb.length ? na : nb;
  if (shorter.length >= 4 && (na.includes(nb) || nb.includes(na))) return 1;
  const ta = factTokens(a);
  const tb = factTokens(b);
  if (!ta.size || !tb.size) return 0;
  let shared = 0;
  for (const x of ta) if (tb.has(x)) shared++;
  const need = Math.min(ta.size, tb.size) <= 3 ? 2 : 3;
  if (shared < need) return 0;
  return shared / Math.min(ta.size, tb.size);
}

/** Text agreement at or above this counts as the same fact. */
export const AGREEMENT_THRESHOLD = 0.5;

/** Messages that contain words of the item (best effort): the best ones, at most 3, in session order. */
export function messagesFor(item: string, messages: readonly NormalizedMessage[]): NormalizedMessage[] {
  const words = factTokens(item);
  if (!words.size) return [];
  const scored = messages
    .filter((m) => m.role !== 'system')
    .map((m, i) => {
      const mw = factTokens(m.content);
      let shared = 0;
      for (const w of words) if (mw.has(w)) shared++;
      return { m, i, shared };
    })
    .filter((x) => x.shared > 0);
  if (!scored.length) return [];
  const best = Math.max(...scored.map((x) => x.shared));
  const floor = Math.max(words.size <= 2 ? 1 : 2, Math.ceil(best * 0.6));
  return scored
    .filter((x) => x.shared >= floor)
    .sort((a, b) => b.shared - a.shared || a.i - b.i)
    .slice(0, 3)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.m);
}

// ------------------------------------------------------------------------------ extraction

/**
 * The whole session for the extract stage, window by window: every message redacted as analyzeSession
 * does, in the pieces the rules read, grouped in order into windows that fit the prompt's
 * {@link MAX_SESSION_CHARS} (a line's prefix and newline counted), so a long transcript is sent in full,
 * one call per window, and nothing is cut. Empty when the session is too short to learn from.
 */
export async function extractionWindows(
  session: SessionInput,
  clock?: () => Date,
): Promise<NormalizedMessage[][]> {
  const { all, skipped } = normalizeSession(session, clock);
  if (skipped) return [];
  const windows: NormalizedMessage[][] = [];
  let current: NormalizedMessage[] = [];
  let size = 0;
  for (const m of all) {
    const r = await redactText(m.content);
    for (const content of splitPieces(r.findings.length ? r.text : m.content, MAX_MESSAGE_CHARS)) {
      const len = content.length + 4; // "用户：" and the newline
      if (size + len > MAX_SESSION_CHARS && current.length) {
        windows.push(current);
        current = [];
        size = 0;
      }
      current.push({ ...m, content });
      size += len;
    }
  }
  if (current.length) windows.push(current);
  return windows;
}

/**
 * The newest window of the session's messages as the extract stage needs them: normalized and redacted exactly as
 * analyzeSession does (same ids `m<i>`, so message_ids line up with the rule candidates'). Empty when
 * the session is too short to learn from.
 */
export async function extractionMessages(
  session: SessionInput,
  clock?: () => Date,
): Promise<NormalizedMessage[]> {
  const { messages, skipped } = normalizeSession(session, clock);
  if (skipped) return [];
  const out: NormalizedMessage[] = [];
  for (const m of messages) {
    const r = await redactText(m.content);
    out.push(r.findings.length ? { ...m, content: r.text } : m);
  }
  return out;
}

/** A stored memory, as far as {@link selectKnown} needs it. */
export interface KnownMemoryLike {
  text: string;
  category: Category;
  status: string;
  created_at: string;
  updated_at?: string;
}

/**
 * The known memories sent with the prompt (docs/design.md, Extraction with an LLM): the latest persona
 * and instruction memories (not wrong or archived; pending ones count, so what waits for review is not
 * proposed again), newest first, at most 15.
 */
export function selectKnown(
  memories: readonly KnownMemoryLike[],
  max: number = EXTRACT_DEFAULTS.maxKnown,
): string[] {
  return memories
    .filter(
      (m) =>
        (m.category === 'persona' || m.category === 'instruction') &&
        m.status !== 'wrong' &&
        m.status !== 'archived',
    )
    .sort((a, b) => (b.updated_at ?? b.created_at).localeCompare(a.updated_at ?? a.created_at))
    .slice(0, max)
    .map((m) => m.text);
}

/**
 * Asks the model for the session's memories. `messages` must already be redacted (the pipeline's
 * redact stage); as a last guard everything sent is redacted again and `guard_redactions` says what
 * that still caught. `known` are the project's latest persona and instruction memories, newest first
 * (at most 15 and 500 characters are injected). Never throws: failures come back as `error`.
 */
export async function extractWithLlm(
  provider: LlmProvider,
  messages: readonly NormalizedMessage[],
  known: readonly string[],
  opts: ExtractOptions = {},
): Promise<ExtractResult> {
  let usage: LlmUsage = { ...ZERO };
  let guard = 0;
  let raw: string | undefined;
  try {
    const prompt = buildExtractionPrompt(messages, known, opts.maxConversationChars);
    if (!prompt[1]!.content.trim())
      return {
        candidates: [],
        usage,
        guard_redactions: 0,
        skipped: 'the session has no user or assistant text',
      };
    // Last guard: nothing unredacted leaves the machine, even if a caller forgot the redact stage.
    const sent: LlmMessage[] = [];
    for (const m of prompt) {
      const r = await redactText(m.content);
      guard += r.findings.reduce((n, f) => n + f.count, 0);
      sent.push({ role: m.role, content: r.text });
    }
    const answer = await provider.complete(sent, {
      temperature: opts.temperature ?? EXTRACT_DEFAULTS.temperature,
      max_tokens: opts.max_tokens ?? EXTRACT_DEFAULTS.max_tokens,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    raw = answer.text;
    usage = answer.usage ?? {
      prompt_tokens: sent.reduce((n, m) => n + estimateTokens(m.content), 0),
      completion_tokens: estimateTokens(answer.text),
      estimated: true,
    };
    const parsed = parseExtraction(answer.text);
    if (!parsed) {
      return {
        candidates: [],
        usage,
        raw,
        guard_redactions: guard,
        error: `The LLM (${provider.id}) answered, but not with the JSON Mnemo asked for ({"persona": [...], "episodic": [...], "instruction": [...]}), so nothing was learned from it.`,
      };
    }
    const knownKeys = new Set(known.map((k) => normalizeText(k)));
    const candidates: Candidate[] = [];
    for (const category of CATEGORIES) {
      for (const item of parsed[category]) {
        // The model may invent something secret-shaped; what it says is redacted like anything else.
        const text = (await redactText(item)).text;
        if (knownKeys.has(normalizeText(text))) continue; // it repeated a known memory despite the prompt
        candidates.push(llmCandidate(text, category, messages, opts.source_type ?? 'chat'));
      }
    }
    const scoreOpts =
      opts.reviewScoreThreshold !== undefined ? { reviewThreshold: opts.reviewScoreThreshold } : {};
    return { candidates: scoreCandidates(candidates, scoreOpts), usage, raw, guard_redactions: guard };
  } catch (err) {
    const error =
      err instanceof LlmUnavailableError
        ? err.message
        : `LLM extraction failed unexpectedly (${errorMessage(err).replace(/[.。]\s*$/, '')}); the rules' results are used alone.`;
    const out: ExtractResult = { candidates: [], usage, error, guard_redactions: guard };
    if (raw !== undefined) out.raw = raw;
    return out;
  }
}

function llmCandidate(
  text: string,
  category: Category,
  messages: readonly NormalizedMessage[],
  sourceType: SourceType,
): Candidate {
  const from = messagesFor(text, messages);
  const nums = findNumbers(text);
  const tech = findTechTerms(text);
  const features: CandidateFeatures = {
    role: from.find((m) => m.role === 'user')?.role ?? from[0]?.role ?? 'user',
    rule: 'llm',
    explicit_request: false,
    has_number: nums.length > 0,
    tech_terms: tech.length,
    vent: false,
    unverified_claim: false,
    length: [...text].length,
    weighted_length: weightedLength(text),
  };
  return {
    text,
    category,
    source_type: sourceType,
    is_actionable: nums.length > 0 && tech.length > 0,
    source_ref: from.map((m) => `msg:${m.id}`),
    message_ids: from.map((m) => m.id),
    reason: `llm:${category}`,
    score: 0,
    confidence: 0,
    pending: false,
    features,
  };
}

// ------------------------------------------------------------------------------ merge

/** Whether two facts mean the same (the service: embeddings cosine distance < 0.25). May throw: counts as "no". */
export type SimilarFn = (a: string, b: string) => Promise<boolean> | boolean;

/** Confidence added when both the rules and the LLM found a fact, and its cap. */
export const AGREEMENT_BONUS = 0.1;
export const AGREEMENT_CAP = 0.98;

/**
 * Reconciles the rule stage's candidates with the LLM's (call it only when extraction succeeded; on
 * an LLM error keep the rules' candidates as they are).
 *
 * - Agreement — an LLM item whose words match a rule candidate ({@link textAgreement}), or failing
 *   that one `similar` says is the same: the rule candidate is kept (its text is a span of what the
 *   person said, the LLM's is a paraphrase) with confidence +0.1 (at most 0.98) and reason
 *   `<rule reason> +llm-agrees`. The category becomes the LLM's when they differ (the model applies
 *   the persona/episodic/instruction taxonomy (docs/design.md) to the whole conversation, the rules to one sentence; e.g. a preference the
 *   rules kept by its verb as an instruction), noted as `+llm-category(<llm> over <rules>)`; dedup then
 *   compares it with memories of that category. The review gate of the rule candidate stays as it was.
 * - A rule candidate the LLM did not propose: pending, `pending_reason` "the LLM did not propose it"
 *   (after any reason it already had) — stored as `<rule reason>; pending: the LLM did not propose it`.
 * - An LLM item no rule kept: pending, reason `llm:<category>`, `pending_reason` "the rules did not
 *   keep it (<why>)" citing the drop reason of the session sentence it matches best in `dropped`.
 *
 * Order: the rule candidates as given, then the LLM-only items as given.
 */
export async function mergeRuleAndLlm(
  rules: readonly Candidate[],
  llm: readonly Candidate[],
  similar: SimilarFn,
  dropped: readonly Dropped[] = [],
): Promise<Candidate[]> {
  const agreedBy = new Map<number, Candidate[]>();
  const llmOnly: Candidate[] = [];
  for (const l of llm) {
    let best = -1;
    let bestScore = 0;
    rules.forEach((r, i) => {
      const s = textAgreement(l.text, r.text);
      if (s >= AGREEMENT_THRESHOLD && s > bestScore) {
        best = i;
        bestScore = s;
      }
    });
    if (best < 0) {
      for (let i = 0; i < rules.length && best < 0; i++) {
        try {
          if (await similar(l.text, rules[i]!.text)) best = i;
        } catch {
          // an embedding failure is not agreement
        }
      }
    }
    if (best >= 0) agreedBy.set(best, [...(agreedBy.get(best) ?? []), l]);
    else llmOnly.push(l);
  }

  const out: Candidate[] = rules.map((r, i) => {
    const agreeing = agreedBy.get(i);
    if (!agreeing) {
      return {
        ...r,
        pending: true,
        pending_reason: r.pending_reason
          ? `${r.pending_reason}; the LLM did not propose it`
          : 'the LLM did not propose it',
      };
    }
    const l = agreeing[0]!;
    const ids = [...new Set([...r.message_ids, ...agreeing.flatMap((a) => a.message_ids)])];
    const refs = [...new Set([...r.source_ref, ...agreeing.flatMap((a) => a.source_ref)])];
    const recat = l.category !== r.category ? ` +llm-category(${l.category} over ${r.category})` : '';
    return {
      ...r,
      category: l.category,
      message_ids: ids,
      source_ref: refs,
      confidence: Math.round(Math.min(AGREEMENT_CAP, r.confidence + AGREEMENT_BONUS) * 1000) / 1000,
      reason: `${r.reason} +llm-agrees${recat}`,
    };
  });

  for (const l of llmOnly) {
    let why = 'no rule matched any sentence saying it';
    let bestScore = 0;
    for (const d of dropped) {
      const s = textAgreement(l.text, d.text);
      if (s >= AGREEMENT_THRESHOLD && s > bestScore) {
        bestScore = s;
        why = d.reason;
      }
    }
    const own = l.pending && l.pending_reason ? `; ${l.pending_reason}` : '';
    out.push({ ...l, pending: true, pending_reason: `the rules did not keep it (${why})${own}` });
  }
  return out;
}
