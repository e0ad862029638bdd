/**
 * Hedges and venting: sentences that are not definite statements or only vent are dropped
 * (docs/design.md, What is not a memory).
 */
import { alt, words } from './build';

/** Chinese hedges: "可能是网络问题", "大概是驱动的事", "我猜是驱动". */
export const HEDGE_ZH = alt([
  '(?<!不)可能(?!性为零)', // "可能", but not "不可能" (a definite no) or "可能性为零"
  '大概(?!\\s*[\\d一二两三四五六七八九十几半])', // "大概是网络", but "大概八千" is an approximate amount
  '也许',
  '好像',
  '似乎',
  '或许',
  '估计',
  '说不定',
  '不确定',
  '不太确定',
  '貌似',
  '我猜',
  '我觉得', // "I think": "我觉得X有内存泄漏", as HEDGE_EN's "I think"
  '猜测',
  '不一定',
  '应该是', // "应该是网络的问题" (a guess), unlike "应该先…" (a rule)
  '应该会',
  '应该能',
  '应该没',
  '没准',
]);

/** English hedges: "maybe it's the network", "I think it's 3 seconds", "should be fine". */
export const HEDGE_EN = alt(
  [
    words([
      'maybe',
      'probably',
      'perhaps',
      'possibly',
      'might',
      'likely',
      'unlikely',
      'presumably',
      'apparently',
    ]),
    '\\bi (?:guess|think|suppose|believe|assume)\\b',
    '\\bnot (?:sure|certain)\\b',
    '\\bmay be\\b',
    '\\bcould be\\b',
    '\\bseems?(?: like| to)?\\b',
    '\\bshould (?:work|be fine|be ok(?:ay)?|help)\\b',
    "\\bi'm not sure\\b",
    '\\bat some point\\b', // "I need to sort out the internet plan at some point": no plan yet
  ],
  'i',
);

/** Venting, in both languages: "这破驱动又崩了", "烦死了", "ugh, this sucks". Dropped unless the sentence has content. */
export const VENT = alt(
  [
    '这破',
    '破(?:驱动|系统|玩意|电脑|机器|软件|代码|服务器|网络)', // "破驱动"
    '又(?:崩|挂|炸|死机)了', // "又崩了"
    '烂(?:透|死)',
    '垃圾',
    '坑爹',
    '太坑',
    '真坑',
    '卧槽',
    '我靠',
    '妈的',
    '尼玛',
    '无语',
    '气死',
    '烦死',
    '服了',
    '什么鬼',
    '见鬼',
    '受不了',
    '崩溃了',
    '\\bwtf\\b',
    '\\bdamn\\b',
    '\\bugh+\\b',
    '\\bargh+\\b',
    '\\bstupid\\b',
    '\\bsucks?\\b',
    '\\bcrap\\b',
    '\\bfuck\\w*',
    '\\bshit\\w*',
    '\\bffs\\b',
    '\\bannoying\\b',
    '\\bhate (?:this|it)\\b',
  ],
  'i',
);
