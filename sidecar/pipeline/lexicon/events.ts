/**
 * Events: something happened, with a time cue or a completion word (docs/design.md, Extraction with an
 * LLM: episodic). A match keeps the sentence as an episodic memory.
 */
import { alt, words } from './build';

/** Chinese time cues of a past event: "昨天", "上周", "3月12日", "终于", "那天". */
export const TIME_ZH = alt([
  '昨天',
  '前天',
  '今天',
  '今早',
  '今晚',
  '刚才',
  '刚刚',
  '上周',
  '上个?星期',
  '上个?月',
  '上次',
  '去年',
  '前几天',
  '周[一二三四五六日末]',
  '星期[一二三四五六日天]',
  String.raw`\d{1,2}月\d{1,2}[日号]`,
  '凌晨',
  '上午',
  '下午',
  '晚上',
  '早上',
  '已经',
  '终于',
  '之前',
  '那天',
]);

/** English time cues of a past event: "yesterday", "last sprint", "on Monday", "3 days ago", "finally". */
export const TIME_EN = new RegExp(
  words([
    'yesterday',
    'today',
    'tonight',
    'this (?:morning|afternoon|week)',
    'last (?:week|night|month|year|time|sprint|release|monday|tuesday|wednesday|thursday|friday|saturday|sunday)',
    'earlier today',
    'just now',
    'on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)',
    String.raw`\d+ (?:days?|weeks?|hours?) ago`,
    'already',
    'finally',
  ]),
  'i',
);

/** Chinese completion: "搞定", "修复了", "上线了", any verb + "了" at a pause ("跑了，"), "到了". */
export const DONE_ZH = alt([
  '完成',
  '搞定',
  '修好',
  '修复了',
  '解决了',
  '上线了',
  '发布了',
  '迁移了',
  '升级了',
  '跑通了',
  '部署了',
  String.raw`(?:[\u3400-\u9fff])了(?:[，。！!,]|$)`,
  '到了',
]);

/** English completion: "finished", "shipped", "fixed", "rolled out", "moved". */
export const DONE_EN = new RegExp(
  words([
    'finished',
    'completed',
    'shipped',
    'released',
    'fixed',
    'resolved',
    'merged',
    'deployed',
    'migrated',
    'upgraded',
    'launched',
    'rolled out',
    'restarted',
    'rebuilt',
    'replaced',
    'switched',
    'moved',
  ]),
  'i',
);

/** Assistant messages are kept only when they confirm: "确认是驱动问题", "root cause: …", "fixed by …". */
export const ASSISTANT_KEEP = alt(
  [
    '确认',
    '验证',
    '证实',
    '查明',
    '定位到',
    '根因',
    '根本原因',
    '原因是',
    '结论',
    '决定',
    '已修复',
    '已解决',
    words([
      'confirmed',
      'verified',
      'root cause',
      'turn(?:s|ed) out',
      'the fix (?:is|was)',
      'decided',
      'resolved by',
      'fixed by',
      'we agreed',
    ]),
  ],
  'i',
);
