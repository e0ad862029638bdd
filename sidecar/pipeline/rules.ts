/**
 * Stage 3: rules. The hard rule filter (docs/design.md, Rules: the hard filter), for Chinese and English:
 * split messages into sentences (Intl.Segmenter), tag parts of speech (jieba for Chinese, en-pos
 * for English) where a verb's shape matters, then keep or drop each sentence and say which rule
 * decided. Kept sentences become {@link Candidate}s with a category, `is_actionable`, `source_ref`
 * and `pending` for explicit "记一下 / remember this" requests; score, confidence and the review
 * gate are filled by the score stage. Pure: no I/O (jieba's dictionary ships in the package).
 * The cue words are the named tables of ./lexicon; this file composes them into decisions.
 */
import { createRequire } from 'node:module';
import { normalizeText, type Category, type SourceType } from '../model';
import { jieba } from '../util/jieba';
import {
  ASSISTANT_KEEP,
  BE_PAST_EN,
  CHANGE_ZH,
  DONE_ZH_BARE,
  COGNITIVE_EN,
  COGNITIVE_EN_PHRASE,
  COGNITIVE_ZH,
  COMPAT_SUBJECT,
  CORRECTION_EN,
  CORRECTION_ZH,
  DATE_LIKE,
  DECISION_EN,
  DECISION_ZH,
  DOC_NOUN_EN,
  DOC_NOUN_ZH,
  DONE_EN,
  DONE_ZH,
  DURABLE,
  EN_OBJECT_TAGS,
  EN_PAST_IRREGULAR,
  EN_SUBJECT_TAGS,
  EN_TECH_WORDS,
  EN_VERB_CONTEXT,
  EVIDENCE,
  EXPLICIT_HEAD_EN,
  EXPLICIT_HEAD_ZH,
  EXPLICIT_TAIL_EN,
  EXPLICIT_TAIL_ZH,
  HEDGE_EN,
  HEDGE_ZH,
  IDENTITY_EN,
  IDENTITY_ZH,
  isSmallTalk,
  meaningfulLength,
  NECESSITY,
  NUMBER_RE,
  ONE_OFF_EN,
  ONE_OFF_ZH,
  ONLY_POINTER,
  OPERATIONAL_EN,
  OPERATIONAL_ZH,
  PREFERENCE_EN,
  PREFERENCE_ZH,
  REF_MARKER,
  REMINDER,
  RULE_EN,
  RULE_ZH,
  SMALL_TALK,
  smallTalkKey,
  STATIVE_ZH,
  STYLE,
  TIME_EN,
  TIME_ZH,
  VENT,
  ZH_TECH,
  AMOUNT_EN,
  AMOUNT_ZH,
  FAMILY_CHATTER_EN,
  FAMILY_CHATTER_ZH,
  FAMILY_EN,
  FAMILY_ZH,
  FIRST_PERSON_EN,
  FIRST_PERSON_ZH,
  LIFE_PAST_EN,
  LIFE_PAST_ZH,
  LIFE_TIME_EN,
  LIFE_TIME_ZH,
  LIKES_EN,
  LIKES_ZH,
  MONEY_EN,
  PASSING_EN,
  PASSING_ZH,
  PLAN_DETAIL_EN,
  PLAN_EN,
  PLAN_WILL_EN,
  PLAN_ZH,
  POSSESSION_EN,
  POSSESSION_ZH,
  ONE_OFF_MORE_EN,
  ONE_OFF_MORE_ZH,
  REMARK_EN,
  REMARK_ZH,
  STATUS_EN,
  STATUS_ZH,
  SUGGESTION_EN,
  SUGGESTION_ZH,
  UNDATED_EN,
  UNDATED_ZH,
} from './lexicon';
import type { Candidate, CandidateFeatures, Dropped, NormalizedMessage, Role } from './types';

// ---------------------------------------------------------------------------------------------
// Taggers (loaded lazily: jieba's dictionary costs ~200 ms, and many sessions never need it)

interface TaggedWord {
  word: string;
  tag: string;
}
interface JiebaLike {
  tag(sentence: string, hmm?: boolean): TaggedWord[];
}
type EnTagFn = (tokens: string[]) => string[];

const requireHere = createRequire(__filename);
let enTag: EnTagFn | undefined;

function zhTagger(): JiebaLike {
  return jieba();
}

function enTagger(): EnTagFn {
  if (!enTag) {
    const { Tag } = requireHere('en-pos') as typeof import('en-pos');
    // en-pos looks words up in a plain object, so "constructor", "toString" or "valueOf" found a function
    // there and threw ("entry.split is not a function"): such a word is tagged as the noun it is here
    const builtIn = (t: string): boolean => t in Object.prototype || t.toLowerCase() in Object.prototype;
    enTag = (tokens) => {
      if (!tokens.length) return [];
      const tags = new Tag(tokens.map((t) => (builtIn(t) ? 'thing' : t))).initial().smooth().tags;
      return tokens.map((t, i) => (builtIn(t) ? 'NN' : (tags[i] ?? 'NN')));
    };
  }
  return enTag;
}

type Tagged = Array<TaggedWord & { start: number }>;

/** Small memo: one sentence is tagged by several rules (verb shape, event, candidate features). */
function memo(fn: (text: string) => Tagged): (text: string) => Tagged {
  const cache = new Map<string, Tagged>();
  return (text) => {
    let v = cache.get(text);
    if (!v) {
      v = fn(text);
      if (cache.size >= 256) cache.delete(cache.keys().next().value!);
      cache.set(text, v);
    }
    return v;
  };
}

/** Chinese words with jieba POS tags and their character offsets. */
export const tagChinese = memo((text: string): Tagged => {
  let pos = 0;
  return zhTagger()
    .tag(text, true)
    .map((w) => {
      const at = text.indexOf(w.word, pos);
      const start = at >= 0 ? at : pos;
      pos = start + w.word.length;
      return { ...w, start };
    });
});

const EN_TOKEN_RE = /[A-Za-z]+(?:['’][A-Za-z]+)?|\d+(?:[.,:]\d+)*[A-Za-z%]*|[^\sA-Za-z\d]/g;

/** English tokens with Penn Treebank tags (en-pos) and their character offsets. */
export const tagEnglish = memo((text: string): Tagged => {
  const toks: Array<{ word: string; start: number }> = [];
  for (const m of text.matchAll(EN_TOKEN_RE)) toks.push({ word: m[0], start: m.index });
  const tags = enTagger()(toks.map((t) => t.word));
  return toks.map((t, i) => ({ ...t, tag: tags[i] ?? 'NN' }));
});

// ---------------------------------------------------------------------------------------------
// Sentence segmentation

const segmenter = new Intl.Segmenter('zh', { granularity: 'sentence' });
const TITLE_ABBREV =
  /\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|No|Fig|Vol|Ch|Sec|Eq|approx|vs|etc|e\.g|i\.e|cf|incl)\.\s*$/i;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

/**
 * Split text into sentences: lines first (chat lines, list items), then `Intl.Segmenter`
 * (granularity "sentence"), with fix-ups: no split after abbreviations ("Dr. Wang", "e.g."),
 * inside URLs or numbers, and a split where an ASCII full stop runs straight into Chinese
 * ("设为1500ms.请重启"). List markers ("- ", "1. ", "1、") are removed.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine
      .replace(/^\s*(?:[-*•·>]+\s+|\d{1,2}[.)]\s+|\d{1,2}、\s*|[（(]\d{1,2}[)）]\s*)/, '')
      .trim();
    if (!line) continue;
    const pieces: string[] = [];
    for (const { segment } of segmenter.segment(line)) {
      const prev = pieces[pieces.length - 1];
      if (
        prev !== undefined &&
        (TITLE_ABBREV.test(prev) || // Dr. Wang
          (/https?:\/\/\S*$/.test(prev.trimEnd()) && !/\s$/.test(prev)) || // split inside a URL
          (/\d[.]$/.test(prev) && /^\d/.test(segment))) // 1.5
      ) {
        pieces[pieces.length - 1] = prev + segment;
      } else {
        pieces.push(segment);
      }
    }
    for (const p of pieces) {
      // "1500ms.请重启": ASCII terminator glued to Chinese.
      for (const q of p.split(/(?<=[\p{L}\p{N}][.!?])(?=[\u3400-\u9fff])/u)) {
        const s = q.trim();
        if (s) out.push(s);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Features

/** Information-weighted length: a Chinese character counts 2, other letters and digits 1. */
export function weightedLength(text: string): number {
  let n = 0;
  for (const ch of text) {
    if (CJK.test(ch)) n += 2;
    else if (/[\p{L}\p{N}]/u.test(ch)) n += 1;
  }
  return n;
}

function isChinese(text: string): boolean {
  return CJK.test(text);
}

/** First regex match as the cue shown in reasons. */
function cue(re: RegExp, text: string): string | undefined {
  const m = re.exec(text);
  return m ? m[0].trim() : undefined;
}

/** Numbers that are values (1500ms, port 502, v1.2.3, 3.11), not dates, times, page numbers or parts of identifiers. */
export function findNumbers(text: string): string[] {
  const stripped = text.replace(DATE_LIKE, ' ');
  return [...stripped.matchAll(NUMBER_RE)].map((m) => m[0]);
}

/** Technical terms: identifiers (k8s, PLC-3000, Modbus-TCP), acronyms (TCP, JVM), known tech words, Chinese tech nouns. */
export function findTechTerms(text: string): string[] {
  const out: string[] = [];
  const zh = isChinese(text);
  const noUrls = text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ');
  for (const m of noUrls.matchAll(/(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*(?:[-_./][A-Za-z0-9]+)*/g)) {
    const w = m[0];
    if (
      /\d/.test(w) ||
      /[-_./]/.test(w) ||
      /^[A-Z]{2,}s?$/.test(w) ||
      /[a-z][A-Z]/.test(w) ||
      EN_TECH_WORDS.has(w.toLowerCase()) ||
      (zh && w.length >= 2) // English words inside Chinese text are almost always names of things
    ) {
      out.push(w);
    }
  }
  for (const m of noUrls.matchAll(ZH_TECH)) out.push(m[0]);
  return out;
}

export interface SourceRefResult {
  refs: string[];
  cue?: string;
}

function pageOf(rest: string): string {
  const zh = /^[^，。；,;]{0,12}?第\s*(\d+(?:\.\d+)*)\s*([页章节条])/.exec(rest);
  if (zh) return `第${zh[1]}${zh[2]}`;
  const en = /^[^.;]{0,16}?\b(?:p\.|pp\.|page|pages)\s*(\d+)/i.exec(rest);
  if (en) return ` p.${en[1]}`;
  const sec = /^[^.;]{0,16}?\bsection\s*(\d+(?:\.\d+)*)/i.exec(rest);
  if (sec) return ` §${sec[1]}`;
  return '';
}

/**
 * Referenced documents, links and pages after 参考/依据/来自/according to/see/per:
 * `url:https://...`, `doc:《XX手册》第12页`, `file:docs/setup.md`, `doc:RFC 3339`.
 */
export function extractSourceRefs(text: string): SourceRefResult {
  const refs: string[] = [];
  let firstCue: string | undefined;
  REF_MARKER.lastIndex = 0;
  for (const m of text.matchAll(REF_MARKER)) {
    const marker = m[0];
    const rest = text.slice(m.index + marker.length, m.index + marker.length + 200);
    const before = refs.length;
    const url = /^[^。；;]{0,40}?(https?:\/\/[^\s，。；、）)》"'<>]+)/.exec(rest);
    if (url) {
      refs.push(`url:${url[1]!.replace(/[.,;:!?]+$/, '')}`);
    } else {
      const title = /^[^。；;]{0,20}?(《[^》]{1,60}》)/.exec(rest);
      const file =
        /^[^。；;]{0,30}?((?:[\w.-]+\/)*[\w-]+\.(?:md|pdf|docx?|txt|rst|html?|xlsx?|pptx?|ya?ml|json|toml|ts|js|py|go|rs)(?::\d+)?)\b/i.exec(
          rest,
        );
      const std = /^[^。；;]{0,20}?\b((?:RFC|PEP|ISO|IEC|GB(?:\/T)?|IEEE)\s?-?\d+(?:[.-]\d+)*)/i.exec(rest);
      if (title) {
        refs.push(`doc:${title[1]}${pageOf(rest.slice(title.index + title[0].length))}`);
      } else if (file) {
        refs.push(`file:${file[1]}`);
      } else if (std) {
        refs.push(`doc:${std[1]!.replace(/\s+/, ' ')}${pageOf(rest.slice(std.index + std[0].length))}`);
      } else {
        const phrase = /^[\s:：]*([^，。；,;!?！？()（）]{2,60})/.exec(rest);
        if (phrase) {
          let p = phrase[1]!.trim();
          const zh = isChinese(p);
          if (!zh)
            p = p
              .replace(/[.]\s.*$/, '')
              .replace(/^(?:the|our|this)\s+/i, '')
              .replace(/\.$/, '');
          if ((zh ? DOC_NOUN_ZH : DOC_NOUN_EN).test(p)) {
            // Chinese: cut after the document noun / page ("依据厂家手册第12页修改" -> 厂家手册第12页).
            if (zh) {
              const end =
                /^.*?(?:手册|文档|规范|标准|说明书|指南|白皮书|报告|纪要|规格书|README|wiki)(?:\s*第\s*\d+(?:\.\d+)*\s*[页章节条])?/i.exec(
                  p,
                );
              if (end) p = end[0];
            }
            refs.push(`doc:${p}`);
          }
        }
      }
    }
    if (refs.length > before) firstCue ??= marker.trim();
  }
  return firstCue ? { refs: [...new Set(refs)], cue: firstCue } : { refs: [] };
}

/** The verb cue of a kind, checked for a verb-object (and, in English, subject-verb) shape. */
interface VerbHit {
  verb: string;
  kind: 'cognitive' | 'operational';
  past: boolean;
}

/** A Chinese verb that is the head of a noun here: "合并请求", "迁移方案", "升级依赖", "发布流程". */
const ZH_VERB_AS_NOUN =
  /^(?:请求|方案|文档|依赖|计划|说明|记录|流程|脚本|环境|工具|平台|系统|服务|任务|窗口)/;

function findVerbZh(text: string, kind: 'cognitive' | 'operational'): VerbHit | undefined {
  const list = kind === 'cognitive' ? COGNITIVE_ZH : OPERATIONAL_ZH;
  const hits: Array<{ verb: string; at: number }> = [];
  for (const v of list)
    for (let at = text.indexOf(v); at >= 0; at = text.indexOf(v, at + v.length))
      if (!ZH_VERB_AS_NOUN.test(text.slice(at + v.length))) hits.push({ verb: v, at });
  hits.sort((a, b) => a.at - b.at);
  const best = hits[0];
  if (!best) return undefined;
  // Verb-object shape: something nominal after the verb (jieba tags), subject may be dropped (pro-drop).
  const after = best.at + best.verb.length;
  const tagged = tagChinese(text);
  const hasObject = tagged.some(
    (w) =>
      w.start >= after &&
      /^(?:n|nr|ns|nt|nz|nrt|ng|vn|eng|m|mq|r|a|an|i|l|j|t|v|vd|q|x)$/.test(w.tag) &&
      meaningfulLength(w.word) > 0,
  );
  if (!hasObject) return undefined;
  const tail = text.slice(best.at, best.at + best.verb.length + 8);
  const past = /了|过/.test(tail) || /已经|已/.test(text.slice(Math.max(0, best.at - 4), best.at));
  return { verb: best.verb, kind, past };
}

function findVerbEn(text: string, kind: 'cognitive' | 'operational'): VerbHit | undefined {
  const lex = kind === 'cognitive' ? COGNITIVE_EN : OPERATIONAL_EN;
  if (kind === 'cognitive') {
    const phrase = COGNITIVE_EN_PHRASE.exec(text);
    if (phrase) return { verb: phrase[0].toLowerCase(), kind, past: /ed\b|was/.test(phrase[0]) };
  }
  const toks = tagEnglish(text);
  for (let i = 0; i < toks.length; i++) {
    const w = toks[i]!.word.toLowerCase();
    const lemma =
      lex[w] ??
      (kind === 'operational' &&
      (w === 'roll' || w === 'rolled') &&
      toks[i + 1]?.word.toLowerCase() === 'back'
        ? 'roll back'
        : undefined);
    if (!lemma) continue;
    const prev = toks[i - 1]?.word.toLowerCase();
    // "I can't decide what to cook" is no decision
    if (kind === 'cognitive' && prev && /^(?:can't|cannot|couldn't|don't|didn't|haven't|not)$/.test(prev))
      continue;
    const tag = toks[i]!.tag;
    const isVerb = tag.startsWith('VB') || i === 0 || (prev !== undefined && EN_VERB_CONTEXT.has(prev));
    if (!isVerb) continue;
    // "the React Native upgrade tests", "the payments gateway scaling is still being debated": a base or -ing
    // form right after a noun is part of a name, not a verb ("the cron runs nightly", "payments moved" are)
    if (
      i > 0 &&
      /^(?:NN|NNP)$/.test(toks[i - 1]!.tag) &&
      !EN_VERB_CONTEXT.has(prev ?? '') &&
      !/['’]/.test(prev ?? '') &&
      (lemma === w || w.endsWith('ing'))
    )
      continue;
    const imperative =
      i === 0 ||
      prev === 'please' ||
      prev === 'then' ||
      prev === 'and' ||
      prev === 'always' ||
      prev === 'never' ||
      prev === 'first';
    const hasSubject = imperative || toks.slice(0, i).some((t) => EN_SUBJECT_TAGS.test(t.tag));
    const hasObject = toks.slice(i + 1).some((t) => EN_OBJECT_TAGS.test(t.tag) && /[A-Za-z0-9]/.test(t.word));
    if (!hasSubject || !hasObject) continue;
    const past =
      /ed$/.test(w) ||
      (EN_PAST_IRREGULAR.has(w) &&
        !imperative &&
        (tag === 'VBD' ||
          tag === 'VBN' ||
          prev === 'was' ||
          prev === 'were' ||
          prev === 'have' ||
          prev === 'has' ||
          prev === 'had'));
    return { verb: w, kind, past };
  }
  return undefined;
}

function findVerb(text: string, kind: 'cognitive' | 'operational'): VerbHit | undefined {
  return isChinese(text) ? (findVerbZh(text, kind) ?? findVerbEn(text, kind)) : findVerbEn(text, kind);
}

// ---------------------------------------------------------------------------------------------
// Classification

/** Keep decision of one sentence (before scoring). */
interface Keep {
  keep: true;
  rule: string;
  cue: string;
  category: Category;
  verb?: VerbHit;
}
interface Drop {
  keep: false;
  reason: string;
}
type Decision = Keep | Drop;

const drop = (rule: string, c?: string): Drop => ({
  keep: false,
  reason: c ? `drop:${rule}(${c})` : `drop:${rule}`,
});
const keep = (rule: string, c: string, category: Category, verb?: VerbHit): Keep => ({
  keep: true,
  rule,
  cue: c,
  category,
  verb,
});

/** Remove leading greetings/acks ("你好，", "Thanks! ", "好的，") that precede real content. */
export function stripLeadingSmallTalk(text: string): string {
  let s = text;
  for (let i = 0; i < 3; i++) {
    const m = /^([^,，!！。.;；:：]{1,12})[,，!！。.;；:：~～]+\s*/.exec(s);
    if (!m || m[0].length >= s.length || !isSmallTalk(m[1]!)) break;
    s = s.slice(m[0].length);
  }
  return s;
}

/** An English question without its mark: "is anyone actually on call for it this week or is it just vibes". */
const EN_QUESTION_OPENER =
  /^(?:is|are|was|were|do|does|did|can|could|would|will|has|have|had)\s+(?:anyone|anybody|someone|somebody|there|it|this|that|we|they|he|she)\b/i;

/**
 * A Chinese question without its mark, in its last clause: "X旧的定时任务是不是可以下掉了", "这周到底有没有人值班",
 * "跳槽的事怎么样了", "最后定了多少", "上次说的升级定了没".
 */
const ZH_QUESTION_TAIL =
  /(?:是不是|能不能|(?<!你)要不要(?!一起)|可不可以|有没有|到底)[^，。！？!?,]*$|(?:怎么样了|定了没|了没|多少|什么时候|哪天|哪里)[。.!！]*$/;

function isQuestion(text: string): boolean {
  const t = text.replace(/[\s\p{So}]+$/u, '');
  if (/[?？]$/.test(t) || EN_QUESTION_OPENER.test(t)) return true;
  if (CJK.test(t) && ZH_QUESTION_TAIL.test(t) && !/不知道是不是/.test(t)) return true;
  return /(?:吗|么|呢)$/.test(t.replace(/[。.!！]+$/, '')) && !/什么都|怎么样都/.test(t);
}

/** A clause that ends on a bare pronoun: "I'll put a date on it", "I'm going to pretend I didn't see that". */
const PRONOUN_END_EN = /\b(?:it|that|this|them)\s*[.!]*\s*$/i;

/** An "I'll …" plan with a detail to recall (a time, a number, a name, whose). */
function willPlan(text: string): string | undefined {
  const c = cue(PLAN_WILL_EN, text);
  return c && PLAN_DETAIL_EN.test(text) ? c : undefined;
}

/** Keep rules that apply to any role (in this order). */
function keepRules(text: string, zh: boolean): Keep | undefined {
  let c: string | undefined;
  if ((c = cue(STYLE, text))) return keep('style', c, 'persona');
  if ((c = cue(zh ? PREFERENCE_ZH : PREFERENCE_EN, text) ?? (zh ? cue(PREFERENCE_EN, text) : undefined)))
    return keep('preference', c, 'persona');
  if ((c = cue(zh ? IDENTITY_ZH : IDENTITY_EN, text))) return keep('identity', c, 'persona');
  if ((c = cue(zh ? DECISION_ZH : DECISION_EN, text))) return keep('decision', c, 'instruction');
  return undefined;
}

/**
 * Persona and episodic facts of a person's life (docs/design.md, Rules: persona and episodic facts):
 * likes, family and pets, possessions, plans, a first-person past event with a time cue, money and
 * amounts. User messages only.
 */
/**
 * The first time cue that dates something ("yesterday", "上周", "two weeks ago"), skipping the words that
 * date nothing ({@link UNDATED_EN}: "already", "finally", "终于", "已经", "之前").
 */
function datedCue(res: RegExp[], text: string, zh: boolean): string | undefined {
  for (const re of res)
    for (const m of text.matchAll(
      new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g'),
    )) {
      const c = m[0].trim();
      if (!(zh ? UNDATED_ZH : UNDATED_EN).test(c)) return c;
    }
  return undefined;
}

/** A value a later question can ask for: a number ("port 8443", "3 天") or a versioned name ("Pixel 7", "v2"). */
function hasValue(text: string): boolean {
  return findNumbers(text).length > 0;
}

/**
 * Chatter that the keep rules would take for a fact (lexicon/chatter.ts): how work is going, a remark about
 * the moment, a vague proposal, a request to whoever listens. Only without a value.
 */
function chatter(text: string, zh: boolean): Drop | undefined {
  if (hasValue(text)) return undefined;
  let c: string | undefined;
  if ((c = cue(zh ? STATUS_ZH : STATUS_EN, text))) return drop('status-chatter', c);
  if ((c = cue(zh ? REMARK_ZH : REMARK_EN, text))) return drop('passing', c);
  if ((c = cue(zh ? SUGGESTION_ZH : SUGGESTION_EN, text))) return drop('suggestion', c);
  if ((c = cue(zh ? ONE_OFF_MORE_ZH : ONE_OFF_MORE_EN, text)) && !DURABLE.test(text))
    return drop('one-off-request', c);
  return undefined;
}

function lifeRules(text: string, zh: boolean): Keep | undefined {
  let c: string | undefined;
  if ((c = cue(zh ? LIKES_ZH : LIKES_EN, text))) return keep('preference', c, 'persona');
  if ((c = cue(zh ? FAMILY_ZH : FAMILY_EN, text)) && !(zh ? FAMILY_CHATTER_ZH : FAMILY_CHATTER_EN).test(text))
    return keep('family', c, 'persona');
  if ((c = cue(zh ? POSSESSION_ZH : POSSESSION_EN, text))) return keep('possession', c, 'persona');
  if (
    (c = cue(zh ? PLAN_ZH : PLAN_EN, text) ?? (zh ? undefined : willPlan(text))) &&
    (zh || !PRONOUN_END_EN.test(text))
  )
    return keep('plan', c, 'episodic');
  const first = (zh ? FIRST_PERSON_ZH : FIRST_PERSON_EN).test(text);
  // "already" and "finally" date nothing, unless the sentence holds a value ("we finally left 7.0.0")
  const when =
    datedCue(zh ? [LIFE_TIME_ZH, TIME_ZH] : [LIFE_TIME_EN, TIME_EN], text, zh) ??
    (hasValue(text) ? cue(zh ? TIME_ZH : TIME_EN, text) : undefined);
  const past = zh ? LIFE_PAST_ZH.test(text) : LIFE_PAST_EN.test(text) || hasActionVerb(text, false);
  if (when && first && past) return keep('life-event', when, 'episodic');
  if (!zh && (c = cue(MONEY_EN, text))) return keep('quantity', c, 'persona');
  if (zh && (c = cue(AMOUNT_ZH, text)) && (first || /[块元钱]|花了|房租|打完折/.test(text)))
    return keep('quantity', c, 'persona');
  if (!zh && first && (c = cue(AMOUNT_EN, text))) return keep('quantity', c, 'persona');
  return undefined;
}

function laterRules(text: string, zh: boolean, role: Role): Decision {
  let c: string | undefined;
  const timed = cue(zh ? TIME_ZH : TIME_EN, text);
  if ((c = cue(zh ? RULE_ZH : RULE_EN, text)))
    return keep(/先|前|后|再|before|then|first/i.test(c) ? 'workflow' : 'rule', c, 'instruction');
  const cog = findVerb(text, 'cognitive');
  if (cog) return keep('cognitive-verb', cog.verb, timed ? 'episodic' : 'instruction', cog);
  const op = findVerb(text, 'operational');
  if (op) return keep('operational-verb', op.verb, timed || op.past ? 'episodic' : 'instruction', op);
  const done = cue(zh ? DONE_ZH : DONE_EN, text) ?? (zh ? bareChange(text) : undefined);
  const dated = datedCue([zh ? TIME_ZH : TIME_EN], text, zh) ?? (hasValue(text) ? timed : undefined);
  if (dated && (done || hasActionVerb(text, zh))) return keep('event', dated, 'episodic');
  if (done && meaningfulLength(text) >= 4) return keep('event', done, 'episodic');
  const nums = findNumbers(text);
  const tech = findTechTerms(text);
  if (nums.length && tech.length && role === 'user')
    return keep('tech-number', `${tech[0]} ${nums[0]}`, 'instruction');
  return drop('no-signal');
}

/** An action happened: a non-stative verb (jieba `v`) or an English past-tense verb other than "was". */
function hasActionVerb(text: string, zh: boolean): boolean {
  if (zh) return tagChinese(text).some((w) => /^v[dn]?$/.test(w.tag) && !STATIVE_ZH.has(w.word));
  return tagEnglish(text).some(
    (w) => (w.tag === 'VBD' || w.tag === 'VBN') && !BE_PAST_EN.has(w.word.toLowerCase()),
  );
}

/**
 * The bare "…了" at a pause as a completion cue, only when the sentence has something to recall: a change
 * ("改喝绿茶了", "搬到杭州了"), a number, a technical term, or a place ("去成都了"). Without one it is
 * a passing state ("好点了，谢谢关心", "我去忙了", "懂了懂了").
 */
function bareChange(text: string): string | undefined {
  const m = DONE_ZH_BARE.exec(text);
  if (!m) return undefined;
  const change = cue(CHANGE_ZH, text);
  if (change) return change;
  if (findNumbers(text).length || findTechTerms(text).length) return m[0].trim();
  return tagChinese(text).some(
    (w) => w.tag === 'ns' && [...w.word].length >= 2, // a place; jieba's person tag is too loose ("谢谢", "雨淋")
  )
    ? m[0].trim()
    : undefined;
}

/** Titles and links are references, not statements: blank them before matching cue words. */
function maskRefs(text: string): string {
  return text.replace(/《[^》]{0,80}》|[a-z][a-z0-9+.-]*:\/\/\S+/gi, '《》');
}

function classifyUser(original: string, zh: boolean): Decision {
  const text = maskRefs(original);
  let c: string | undefined;
  if (isSmallTalk(text)) return drop('small-talk', smallTalkKey(text) || text);
  if (meaningfulLength(text) < 4) return drop('too-short', `${meaningfulLength(text)} chars`);
  if (isQuestion(text)) return drop('question', text.trim().slice(-1));
  if ((c = cue(zh ? CORRECTION_ZH : CORRECTION_EN, text))) return keep('correction', c, 'instruction');
  if ((c = cue(HEDGE_ZH, text) ?? cue(HEDGE_EN, text))) return drop('hedge', c);
  if ((c = cue(VENT, text)) && !hasContent(text)) return drop('venting', c);
  const idle = chatter(text, zh);
  if (idle) return idle;
  const k = keepRules(text, zh);
  if (k) return k;
  // A passing remark (weather, tiredness, a closing line) is no fact, whatever rule would keep it.
  const passing = hasContent(text) ? undefined : cue(zh ? PASSING_ZH : PASSING_EN, text);
  const life = passing ? undefined : lifeRules(text, zh);
  if (life) return life;
  if ((c = cue(zh ? ONE_OFF_ZH : ONE_OFF_EN, text)) && !DURABLE.test(text)) return drop('one-off-request', c);
  if (zh && /^(?:请|麻烦)/.test(text) && !DURABLE.test(text) && !extractSourceRefs(original).refs.length)
    return drop('one-off-request', '请');
  const d = laterRules(text, zh, 'user');
  if (d.keep && passing) return drop('passing', passing);
  if (!d.keep) {
    const refs = extractSourceRefs(original);
    if (refs.cue) return keep('source-ref', refs.cue, 'instruction');
  }
  return d;
}

function classifyAssistant(original: string, zh: boolean, role: Role): Decision {
  const text = maskRefs(original);
  let c: string | undefined;
  if (isSmallTalk(text)) return drop('small-talk', smallTalkKey(text) || text);
  if (meaningfulLength(text) < 4) return drop('too-short', `${meaningfulLength(text)} chars`);
  if (isQuestion(text)) return drop('question', text.trim().slice(-1));
  if ((c = cue(HEDGE_ZH, text) ?? cue(HEDGE_EN, text))) return drop('hedge', c);
  const confirmed = cue(ASSISTANT_KEEP, text);
  if (!confirmed) return drop(role === 'tool' ? 'tool-output-unconfirmed' : 'assistant-unconfirmed');
  const d = keepRules(text, zh);
  if (d && d.rule === 'decision') return d;
  const timed = cue(zh ? TIME_ZH : TIME_EN, text);
  const cog = findVerb(text, 'cognitive');
  return keep('confirmed-fact', confirmed, timed ? 'episodic' : 'instruction', cog);
}

/** Enough substance that venting words do not disqualify it (numbers, identifiers, findings). */
function hasContent(text: string): boolean {
  if (findNumbers(text).length) return true;
  if (/[A-Za-z]+\d|\d+[A-Za-z]|[A-Za-z]+-[A-Za-z0-9]+|0x[0-9a-f]+/i.test(text)) return true;
  if (cue(ASSISTANT_KEEP, text)) return true;
  return isChinese(text) ? meaningfulLength(text.replace(VENT, '')) >= 16 : text.split(/\s+/).length >= 12;
}

/** Strip an explicit request phrase; returns the phrase and the rest. */
export function stripExplicitRequest(text: string): { phrase?: string; rest: string } {
  for (const re of [EXPLICIT_HEAD_ZH, EXPLICIT_HEAD_EN]) {
    const m = re.exec(text);
    if (m && m[0].trim())
      return { phrase: m[0].replace(/[\s:：,，、;-]+$/, '').trim(), rest: text.slice(m[0].length).trim() };
  }
  for (const re of [EXPLICIT_TAIL_ZH, EXPLICIT_TAIL_EN]) {
    const m = re.exec(text);
    if (m && m.index > 0)
      return {
        phrase: m[0].replace(/^[\s,，:：;-]+|[。.!！]+$/g, '').trim(),
        rest: text
          .slice(0, m.index)
          .replace(/[\s,，:：;-]+$/, '')
          .trim(),
      };
  }
  return { rest: text };
}

/** True for fenced code and lines that are clearly code or raw output, not sentences. */
function looksLikeCode(line: string): boolean {
  return /^\s*(?:[{}[\]();]|\/\/|#!|<\/?[a-z]+[ >])/i.test(line) && !CJK.test(line);
}

// ---------------------------------------------------------------------------------------------

export interface RulesResult {
  candidates: Candidate[];
  dropped: Dropped[];
}

interface Unit {
  text: string;
  message: NormalizedMessage;
}

function buildCandidate(
  text: string,
  msg: NormalizedMessage,
  sourceType: SourceType,
  k: Keep,
  explicit: { phrase?: string },
): Candidate {
  const nums = findNumbers(text);
  const tech = findTechTerms(text);
  const refs = extractSourceRefs(text);
  const actionable =
    (nums.length > 0 && tech.length > 0) || (explicit.phrase !== undefined && REMINDER.test(explicit.phrase));
  const vent = VENT.test(text);
  const unverified =
    NECESSITY.test(text) && COMPAT_SUBJECT.test(text) && !EVIDENCE.test(text) && refs.refs.length === 0;
  const verb = k.verb ?? findVerb(text, 'cognitive') ?? findVerb(text, 'operational');
  const extras: string[] = [];
  if (k.rule !== 'tech-number' && nums.length && tech.length)
    extras.push(`+tech-number(${tech[0]} ${nums[0]})`);
  if (verb && k.rule !== `${verb.kind}-verb`) extras.push(`+${verb.kind}-verb(${verb.verb})`);
  if (refs.cue && k.rule !== 'source-ref') extras.push(`+source-ref(${refs.cue})`);
  const primary =
    explicit.phrase !== undefined ? `rule:explicit-request(${explicit.phrase})` : `rule:${k.rule}(${k.cue})`;
  if (explicit.phrase !== undefined && k.rule !== 'explicit-request') extras.unshift(`+${k.rule}(${k.cue})`);
  const features: CandidateFeatures = {
    role: msg.role,
    rule: explicit.phrase !== undefined ? 'explicit-request' : k.rule,
    explicit_request: explicit.phrase !== undefined,
    has_number: nums.length > 0,
    tech_terms: tech.length,
    vent,
    unverified_claim: unverified,
    length: [...text].length,
    weighted_length: weightedLength(text),
  };
  if (explicit.phrase !== undefined) features.request_phrase = explicit.phrase;
  if (verb) {
    features.verb_kind = verb.kind;
    features.verb = verb.verb;
  }
  return {
    text,
    category: k.category,
    source_type: sourceType,
    is_actionable: actionable,
    source_ref: [`msg:${msg.id}`, ...refs.refs],
    message_ids: [msg.id],
    reason: [primary, ...extras].join(' '),
    score: 0,
    confidence: 0,
    pending: explicit.phrase !== undefined,
    ...(explicit.phrase !== undefined ? { pending_reason: `explicit request (${explicit.phrase})` } : {}),
    features,
  };
}

/**
 * Apply the rule filter to normalized (and redacted) messages.
 *
 * Every sentence ends up either in `candidates` (with `reason` naming the rule that kept it, e.g.
 * `rule:operational-verb(设为) +tech-number(阈值 1500ms)`) or in `dropped` (e.g. `drop:hedge(可能)`).
 * User messages are the main source; assistant and tool messages only yield decisions and
 * confirmed facts; system messages yield nothing. Explicit requests ("请记录", "remember that")
 * have the phrase stripped and are marked `pending` for the review queue; a bare request
 * ("把这个加到知识库") applies to the sentence before it.
 */
export function applyRules(messages: NormalizedMessage[], sourceType: SourceType): RulesResult {
  const candidates: Candidate[] = [];
  const dropped: Dropped[] = [];
  const seen = new Map<string, Candidate>();
  /** The last sentence handled, for bare requests that point back. */
  let last: { kind: 'candidate'; c: Candidate } | { kind: 'dropped'; d: Dropped; unit: Unit } | undefined;

  const push = (text: string, msg: NormalizedMessage, k: Keep, explicit: { phrase?: string }): void => {
    const key = normalizeText(text);
    const prior = seen.get(key);
    if (prior) {
      if (!prior.message_ids.includes(msg.id)) {
        prior.message_ids.push(msg.id);
        prior.source_ref.push(`msg:${msg.id}`);
      }
      dropped.push({ text, reason: 'drop:duplicate-in-session', message_id: msg.id });
      return;
    }
    const c = buildCandidate(text, msg, sourceType, k, explicit);
    candidates.push(c);
    seen.set(key, c);
    last = { kind: 'candidate', c };
  };

  for (const msg of messages) {
    let inFence = false;
    const lines: string[] = [];
    for (const line of msg.content.split('\n')) {
      if (/^\s*(?:```|~~~)/.test(line)) {
        if (inFence) dropped.push({ text: '```', reason: 'drop:code-block', message_id: msg.id });
        inFence = !inFence;
        continue;
      }
      if (inFence || looksLikeCode(line)) continue;
      lines.push(line);
    }
    for (const sentence of splitSentences(lines.join('\n'))) {
      if (msg.role === 'system') {
        dropped.push({ text: sentence, reason: 'drop:system-message', message_id: msg.id });
        continue;
      }
      const text = stripLeadingSmallTalk(sentence);
      const zh = isChinese(text);
      if (msg.role === 'user') {
        const ex = stripExplicitRequest(text);
        if (ex.phrase !== undefined) {
          if (ONLY_POINTER.test(ex.rest)) {
            // Bare request: it applies to the sentence before.
            const prev = last as typeof last;
            if (prev?.kind === 'candidate') {
              const c = prev.c;
              c.pending = true;
              c.pending_reason = `explicit request (${ex.phrase})`;
              c.reason = `rule:explicit-request(${ex.phrase}) ${c.reason.replace(/^rule:/, '+')}`;
              if (c.features) {
                c.features.explicit_request = true;
                c.features.request_phrase = ex.phrase;
                c.features.rule = 'explicit-request';
              }
              if (REMINDER.test(ex.phrase)) c.is_actionable = true;
              if (!c.message_ids.includes(msg.id)) c.message_ids.push(msg.id);
              last = undefined;
            } else if (prev?.kind === 'dropped' && !/^drop:(?:system|duplicate|code)/.test(prev.d.reason)) {
              dropped.splice(dropped.indexOf(prev.d), 1);
              const k =
                keepRules(prev.d.text, isChinese(prev.d.text)) ??
                keep('explicit-request', ex.phrase, 'instruction');
              push(prev.d.text, prev.unit.message, k, { phrase: ex.phrase });
              last = undefined;
            } else {
              dropped.push({
                text: sentence,
                reason: `drop:empty-request(${ex.phrase})`,
                message_id: msg.id,
              });
            }
            continue;
          }
          const rest = ex.rest;
          // "remind me, how long before the service times out?" asks; it states nothing to keep.
          if (isQuestion(rest)) {
            dropped.push({ text: sentence, reason: 'drop:question', message_id: msg.id });
            continue;
          }
          const restZh = isChinese(rest);
          const k =
            keepRules(rest, restZh) ??
            (() => {
              const d = laterRules(rest, restZh, 'user');
              return d.keep ? d : keep('explicit-request', ex.phrase!, 'instruction');
            })();
          push(rest, msg, k, { phrase: ex.phrase });
          continue;
        }
      }
      const d = msg.role === 'user' ? classifyUser(text, zh) : classifyAssistant(text, zh, msg.role);
      if (d.keep) {
        push(text, msg, d, {});
      } else {
        const entry: Dropped = { text: sentence, reason: d.reason, message_id: msg.id };
        dropped.push(entry);
        last = { kind: 'dropped', d: entry, unit: { text, message: msg } };
      }
    }
  }
  return { candidates, dropped };
}

/** Exposed for tests and `--explain`: the small-talk list used by the rules. */
export const SMALL_TALK_WORDS: ReadonlySet<string> = SMALL_TALK;

/** Drop rules that mark a sentence as chatter: venting, small talk, a hedge, a passing remark. */
const CHATTER_DROPS = /^drop:(venting|small-talk|hedge|passing|status-chatter|too-short)\b/;

/**
 * The chatter class of each message whose every sentence the rules dropped as chatter (the first one's
 * rule, e.g. `venting`), by message id. Such a turn is kept as an episode but not quoted as evidence unless
 * a question is about it (docs/design.md, What is not a memory: venting must not be quoted back).
 */
export function chatterOf(result: RulesResult): Map<string, string> {
  const kept = new Set(result.candidates.flatMap((c) => c.message_ids));
  const out = new Map<string, string>();
  const mixed = new Set<string>();
  for (const d of result.dropped) {
    const id = d.message_id;
    if (!id || kept.has(id) || mixed.has(id)) continue;
    const m = CHATTER_DROPS.exec(d.reason);
    if (!m) {
      mixed.add(id);
      out.delete(id);
    } else if (!out.has(id)) out.set(id, m[1]!);
  }
  return out;
}
