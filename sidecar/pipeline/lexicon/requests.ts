/**
 * Requests: what the user asks for. An explicit request to remember makes a pending candidate
 * (docs/design.md, Rules: the hard filter); a one-off request ("帮我查一下天气") is dropped unless it
 * states something durable (docs/design.md, What is not a memory).
 */
import { alt, group, words } from './build';

/** Politeness and address that may open a Chinese request: "请", "麻烦", "帮我", "你". */
const POLITE_ZH = group(['请', '麻烦', '帮我', '帮忙', '你']);

/** The ways to say "remember this" in Chinese, as the head of a sentence. */
const REMEMBER_ZH = [
  // "下次提醒我", "以后记得提醒我一下", "提醒我"
  '(?:下次|以后)(?:记得)?提醒我(?:一下)?',
  '提醒我(?:一下)?',
  // "记一下", "记下来", "记住", "备忘一下"
  '(?:记录一下|记录下来|记一下|记下来|记住|记着|备忘一下)',
  // a bare "记录" / "记下" / "备忘" followed by a pause: "记录：端口改为 8443"
  '(?:记录|记下|备忘)(?=[\\s:：,，]|$)',
  // "把这个加到知识库里", "存入长期记忆"
  '(?:把)?(?:这个|这条|这|它|以下|下面(?:这条)?)?(?:加到|加入|存到|存入|放到|写到|写入|记到|添加到)(?:知识库|记忆库|记忆|备忘录|长期记忆)(?:里|中)?',
];

/** "请记录：…", "把这个加到知识库：…", "下次提醒我…": an explicit request that opens the sentence. */
export const EXPLICIT_HEAD_ZH = new RegExp(`^${POLITE_ZH}*${group(REMEMBER_ZH)}(?:一下)?[\\s:：,，、]*`);

/** "…，记一下。", "…，把这个加到知识库。": an explicit request that closes the sentence. */
export const EXPLICIT_TAIL_ZH =
  /[\s,，:：]*(?:请|麻烦|帮我)*(?:记录一下|记一下|记下来|记住|记住它|记住这个|(?:把)?(?:这个|这条|它)?(?:加到|加入|存到|存入)(?:知识库|记忆库|记忆)(?:里|中)?)[。.!！]*$/;

/** The ways to say "remember this" in English, as the head of a sentence. */
const REMEMBER_EN = [
  'remember\\s+(?:that|this)?', // "remember that the port is 8443"
  'note\\s+this',
  'take\\s+note(?:\\s+of\\s+this)?',
  'make\\s+a\\s+note(?:\\s+of\\s+this|\\s+that)?',
  'keep\\s+in\\s+mind(?:\\s+that)?',
  'save\\s+this(?:\\s+to\\s+memory)?',
  'add\\s+(?:this|that)\\s+to\\s+(?:the\\s+)?(?:knowledge\\s+base|kb|memory)',
  'remind\\s+me(?:\\s+next\\s+time)?(?:\\s+to|\\s+that)?', // "remind me next time to rotate the key"
  'for\\s+the\\s+record',
];

/** "Please remember that …", "For the record: …": an explicit request that opens the sentence. */
export const EXPLICIT_HEAD_EN = new RegExp(
  `^(?:please[\\s,]+|pls[\\s,]+)?${group(REMEMBER_EN)}\\b[\\s:,;-]*`,
  'i',
);

/** "…, please remember this.", "…, add it to the knowledge base.": a request that closes the sentence. */
export const EXPLICIT_TAIL_EN =
  /[\s,;:-]*(?:please\s+)?(?:remember\s+(?:that|this)|note\s+this|add\s+(?:this|it)\s+to\s+(?:the\s+)?(?:knowledge\s+base|kb|memory))[.!]*$/i;

/** A request phrase that asks for a reminder ("提醒我", "remind me"): the memory is actionable. */
export const REMINDER = /提醒|remind/i;

/** What is left of a request that only points back at what was said before ("记一下这个", "note this"). */
export const ONLY_POINTER =
  /^(?:这个|这条|这|它|以上|上面的?|刚才的?|this|that|it|the above|above)?[\s。.!！:：]*$/i;

/** Words that make a request durable, so it is not a one-off: "以后都…", "每次…", "always …", "from now on". */
export const DURABLE = alt(
  [
    '以后',
    '今后',
    '下次',
    '每次',
    '总是',
    '一直',
    '一律',
    '始终',
    '永远',
    '默认',
    '不要',
    '别',
    '禁止',
    '统一',
    words([
      'always',
      'never',
      'from now on',
      'going forward',
      'in future',
      'in the future',
      'every time',
      'whenever',
      'by default',
      "don't",
      'do not',
    ]),
  ],
  'i',
);

/** One-off requests in Chinese: "帮我查一下天气", "能不能看看这个报错", "给我写个脚本". */
export const ONE_OFF_ZH = alt([
  // opens with a request: "帮我…", "你能…", "看看…"
  '^(?:请|麻烦|你)*(?:帮我|帮忙|给我|替我|能不能|能否|可以帮|可不可以|你能|你可以|看看|查查|推荐)',
  // "…一下" (but not "一下子", "at once")
  '一下(?!子)',
  '看看',
]);

/** One-off requests in English: "can you check the logs", "let's look at it", "summarize this". */
export const ONE_OFF_EN =
  /^(?:please\s+|pls\s+)?(?:can you|could you|would you|will you|help me|let'?s|show me|tell me|give me|check|look at|find|search|explain|write|generate|summari[sz]e|translate|draft|please)\b/i;
