/**
 * Small talk: whole utterances that carry nothing to remember. normalize counts substantive lines with
 * it, rules drops sentences with it and strips a greeting that opens a real sentence. Data only, no I/O.
 */

/**
 * Whole utterances that are greetings, acknowledgements or small talk, compared after
 * {@link smallTalkKey}: "你好", "在吗", "好的，谢谢", "ok thanks" (docs/design.md, What is not a memory).
 */
export const SMALL_TALK: ReadonlySet<string> = new Set([
  // zh
  '你好',
  '您好',
  '你好啊',
  '大家好',
  '在吗',
  '在不在',
  '在么',
  '谢谢',
  '谢谢你',
  '谢谢您',
  '多谢',
  '感谢',
  '非常感谢',
  '辛苦了',
  '好的',
  '好',
  '好滴',
  '好嘞',
  '行',
  '可以',
  '嗯',
  '嗯嗯',
  '哦',
  '噢',
  '啊',
  '哈哈',
  '哈哈哈',
  '收到',
  '明白',
  '明白了',
  '懂了',
  '知道了',
  '了解',
  '了解了',
  '没问题',
  '不客气',
  '再见',
  '拜拜',
  '早',
  '早上好',
  '晚安',
  '晚上好',
  '下午好',
  '对',
  '对的',
  '是的',
  '没错',
  '继续',
  '好的谢谢',
  '好的，谢谢',
  'ok',
  'okay',
  '嗯好的',
  '好吧',
  '行吧',
  '稍等',
  '等一下',
  '来了',
  '我来了',
  // en
  'hi',
  'hello',
  'hey',
  'hi there',
  'hello there',
  'thanks',
  'thank you',
  'thanks a lot',
  'thank you so much',
  'thx',
  'ty',
  'ok',
  'okay',
  'k',
  'kk',
  'sure',
  'yes',
  'yep',
  'yeah',
  'no',
  'nope',
  'cool',
  'great',
  'nice',
  'got it',
  'i see',
  'understood',
  'sounds good',
  'perfect',
  'awesome',
  'good morning',
  'good night',
  'good afternoon',
  'good evening',
  'bye',
  'goodbye',
  'see you',
  'cheers',
  'lol',
  'np',
  'no problem',
  'you are welcome',
  "you're welcome",
  'go on',
  'continue',
  'please continue',
  'hmm',
  'ah',
  'oh',
  'wow',
  'are you there',
  'anyone there',
]);

/** Lower-case, drop punctuation/emoji/whitespace at the edges and inside: the key for {@link SMALL_TALK}. */
export function smallTalkKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}\p{Z}\s]+/gu, ' ')
    .trim();
}

/** True when the whole text is a greeting, thanks or acknowledgement. */
export function isSmallTalk(text: string): boolean {
  const key = smallTalkKey(text);
  if (key === '') return true;
  if (SMALL_TALK.has(key)) return true;
  // "好的 谢谢", "ok thanks", "hi there thanks": every part small talk.
  const parts = key.split(' ');
  return parts.length <= 4 && parts.every((p) => SMALL_TALK.has(p));
}

/** Count of letters (any script) and digits: the "meaningful characters" of a text. */
export function meaningfulLength(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(/[\p{L}\p{N}]/gu)) n++;
  return n;
}
