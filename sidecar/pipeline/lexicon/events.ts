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
  '[一二两三四五六七八九十几半\\d]+(?:天|周|个星期|个月|年)(?:以)?前', // "三天前", "两周前"
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

/** Chinese completion words: "搞定", "修复了", "上线了", "到了". */
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
  '到了',
]);

/**
 * Any character + "了" at a pause ("跑了，", "改喝绿茶了"): a change happened, or only a passing state
 * ("好点了", "我去忙了", "懂了懂了", "我又被雨淋了"). It keeps a sentence only with something to recall:
 * a number, a technical term, a place (jieba ns), or a {@link CHANGE_ZH} cue.
 */
export const DONE_ZH_BARE = /[\u3400-\u9fff]了(?:[，。！!,]|$)/;

/**
 * Chinese changes of a life or a system: "改喝绿茶了", "换成…", "搬到杭州", "转去做搜索", "跳槽了",
 * "离开贵阳", "入职", "卖了旧车", "开学了", "戒烟了", "不是酸菜鱼了", "吃腻了", "交给许嘉了", and a value
 * said back and noted ("绿茶，记住了").
 */
export const CHANGE_ZH = alt([
  '不是[\u4e00-\u9fff]{1,8}了',
  '新欢',
  '(?:吃|喝|玩|听)腻',
  '交给|接手|转给',
  '^[^，。]{2,12}[，,]\s*(?:下次)?记(?:住|下)了',
  '改(?:喝|吃|用|成|到|为|去|做|学|练|走|回)',
  '换(?:成|到|去|了)',
  '搬(?:到|去|进|走|家|了)',
  '转(?:去|到|岗|行|正|学)',
  '跳槽',
  '辞职',
  '离职',
  '入职',
  '离开',
  '退休',
  '毕业',
  '结婚',
  '订婚',
  '怀孕',
  '出生',
  '开学',
  '考上',
  '考过',
  '拿到',
  '卖了',
  '戒了',
  '戒掉',
  '升(?:到|级|职)',
  '降(?:到|价)',
  '下线',
  '上线',
]);

/** English be-forms that en-pos tags past tense but that tell no event: "today was a lot". */
export const BE_PAST_EN: ReadonlySet<string> = new Set(['was', 'were', "wasn't", "weren't"]);

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
      '(?<!how (?:it|things|that) )turn(?:s|ed) out', // not "let me know how it turns out"
      'the fix (?:is|was)',
      "(?<!n't |not |yet )decided", // not "you haven't decided yet"
      'resolved by',
      'fixed by',
      'we agreed',
    ]),
  ],
  'i',
);
