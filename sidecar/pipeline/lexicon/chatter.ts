/**
 * Chatter: sentences that look like a fact to the keep rules (a verb of doing, a time word, a "should", a
 * relative) but state nothing a later question can ask for (docs/design.md, What is not a memory; issue 17:
 * "small talk, hedges and venting stay out"). Every turn is also kept verbatim as an episode, so a sentence
 * dropped here is still found as evidence; these tables keep it out of the curated memories. A sentence with
 * a value (a number, a version) is never dropped by them (rules.ts checks that).
 */
import { alt } from './build';

/**
 * How work is going, without a value: "standup ran long again", "the payments gateway scaling is still
 * being debated", "the X build broke again", "the X tests take forever now", "the X handover doc is out of
 * date", "the X changelog is huge this time", "the X error budget is looking scary", "the X upgrade notes
 * are worth a read", "the X load test is running".
 */
export const STATUS_EN = alt(
  [
    String.raw`\b(?:ran|runs|running|went|goes) (?:long|over|nowhere)\b`,
    String.raw`\bstill (?:being )?(?:debated|discussed|open|pending|undecided|a mystery)\b`,
    String.raw`\b(?:broke|broken|failed|failing|flaky|red|down) again\b`,
    String.raw`\btakes? (?:forever|ages)\b`,
    String.raw`\b(?:is|are) (?:out of date|outdated|a mess|a disaster|huge|scary|worth a read|too (?:noisy|loud|big|long))\b`,
    String.raw`\b(?:is|are) (?:looking|getting) (?:scary|bad|worse|rough|ugly)\b`,
    String.raw`\b(?:load|stress|soak) test is running\b`,
    String.raw`\bis (?:still )?(?:running|in progress)\s*$`,
    String.raw`\bwent surprisingly (?:fast|well|smoothly)\b`,
    String.raw`\bclashes with\b`,
    String.raw`\b(?:asked|asks|wants to know) (?:if|whether) we\b`,
    String.raw`\bwants an? (?:inventory|list|overview) of\b`,
    String.raw`\bheld together by tape\b`,
    String.raw`\b(?:builds|fails|breaks|flakes) again\b`,
    String.raw`\bbroke my (?:local )?(?:setup|env|environment|build)\b`,
    String.raw`\bI'm writing tests\b`,
    String.raw`\bfrom (?:the dark ages|before I joined|\w+ reorgs? ago)\b`,
  ],
  'i',
);

/**
 * Chinese work chatter without a value: "站会又开超时了", "用户服务扩缩容还在讨论", "X的构建又挂了", "X的告警最近
 * 太吵了", "X迁移方案的文档有好多评论了", "X升级依赖的合并请求太大了", "X的值班交接文档过期了 / 落后三个版本了 /
 * 乱七八糟", "X的压测在跑了", "X这个月的错误预算很吓人", "估点会吵翻了", "你看今天早上X的监控了吗，有个尖刺", "我翻
 * 了好久X的日志，白看了", "我在X发布到一半的时候终端卡死了", "X的调度有时候和备份撞上", "X灰度看着没问题".
 */
export const STATUS_ZH = alt([
  '又开超时|还在讨论|没结论|吵翻了',
  '又挂了|又崩了|又炸了|卡死了|撞上',
  '(?:太|好|很|特别)吵|太大了|太长了|很吓人|好吓人|怪怪的|一片红|有个尖刺',
  '(?:几十|好多|上百|一堆)条?评论',
  '过期了|乱七八糟|落后[一二两三四五六七八九十几]+个版本',
  '在跑了|跑起来了|看着没问题',
  '白看了|白忙|太玄学|根本看不懂|清净多了',
  '(?:有没有|有没)(?:人值班|文档)',
  '要[^，。]{0,12}所有依赖的清单',
  '又来问',
  '补[^，。]{0,8}测试',
  '搞坏',
  '组织调整之前',
]);

/**
 * Remarks, moods and jokes about the moment, in English: "I slept like four hours, be gentle", "ok I have
 * like ten minutes", "I swear this week has 9 days", "honestly I'm running on vibes today", "I had a whole
 * plan for today and then reality happened", "it finished fine, my heart didn't", "my inbox is a crime
 * scene", "I told you already!", "I read your message three times", "two minutes, then my coffee takes
 * priority", "I finally cleaned out the fridge", "I already guessed the ending", "later meaning never".
 */
export const REMARK_EN = alt(
  [
    String.raw`\bslept (?:like|only|maybe|about)\b|\bbe gentle\b`,
    String.raw`\bI (?:only )?have (?:like )?(?:\w+ )?(?:minutes|seconds)\b`,
    String.raw`\bI swear\b|\bon vibes\b|\breality happened\b|\bmy heart\b|\bcrime scene\b`,
    String.raw`\bI (?:told|said|mentioned)(?: (?:you|it|this|that))?(?: (?:already|before))?\s*[.!]*$`,
    String.raw`\bI said I\b`,
    String.raw`\bread your message\b`,
    String.raw`\btakes priority\b|\bcleaned out the\b|\bguessed the ending\b|\bmeaning never\b`,
    String.raw`\bI want to scream\b|\bso done with\b|\bjust saying\b`,
    String.raw`\bthat's what I do\b|\bas it should be\b|\bI know you\b`,
    String.raw`\bI don't(?: even)?(?:,|\s+have\b)`,
    // about a thing pointed at, not a kind of thing: "belt and braces, I like it", "I hate that job so much"
    String.raw`\bI (?:like|love|hate) (?:it|that|this)(?:\s+\w+)?(?:\s+so much)?\s*[.!]*$`,
    String.raw`\bnever doing them\b|\bso tired of\b`,
    String.raw`,\s*sorry\s*[.!]*$`,
    String.raw`\bonly you would\b|\byou're insane\b`,
    String.raw`\b(?:the|that) \w+ one always gets us\b|\balways gets us\b`,
    String.raw`\bwe always run out of\b|\bI always overpack\b`,
    String.raw`\bfeels silly\b|\bin a good way\b`,
  ],
  'i',
);

/**
 * Chinese remarks, moods and jokes about the moment: "我只有十分钟", "今天状态不太好，凑合着干吧", "今晚不知道吃啥",
 * "今天怎么这么多消息", "不知道是不是我的错觉", "我之前说过啦！", "别问我，问当时在场的人", "应该还行吧，下周再问我",
 * "洗衣服加散步，标准的成年人周末", "我今天已经喝了三杯咖啡了", "羡慕，我在家躺了七天", "同感，元旦三天根本不够",
 * "终于要放假了，好想回家", "心态崩了", "表情符号那个每次都坑我们", "邻居家的狗闹了一晚上", "我终于能睡个整觉".
 */
export const REMARK_ZH = alt([
  '我只有[一二两三四五六七八九十几]+分钟',
  '状态不太好|凑合|不知道吃啥|看都看不过来|这么多消息|我的错觉|好安静',
  '说过啦|说过了[！!]|别问我|再问我|应该还行|还行吧',
  '标准的成年人|喝了[一二两三四五六七八九十几]+杯咖啡|躺了[一二两三四五六七八九十几]+天|根本不够|同感|羡慕',
  '好想回家|心态崩了|好紧张|睡个整觉|闹了一晚上|停电',
  '每次都坑|坑我们|认不出来',
  '今天不想说|改天再聊',
  '结局我已经猜到|把冰箱清理',
  '^(?:那就)?这么定了',
  '[，,]\\s*抱歉[。！!]*$',
  '^(?:好|嗯|行)+[，,]\\s*记住了',
  '[…]+是我',
  '给我发了[^，。]{0,6}照片',
  '穿厚点|多穿点',
]);

/**
 * Vague proposals and wishes, not rules and not plans: "we should grab lunch sometime", "we should write
 * down why the X timeout is what it is", "we should rewrite the thresholds properly", "X那个讨论应该单独开个会",
 * "X那次小抖动我觉得也该写个复盘", "X要是能自动扩缩容就好了", "I want to start journaling but it feels silly".
 * A "should" with a value stays a rule ("they should all be on firmware 2.3.0").
 */
export const SUGGESTION_EN = alt(
  [
    String.raw`\b(?:we|I|someone|somebody)\s+(?:really\s+)?should\b(?!\s+(?:always|never)\b)`,
    String.raw`\bsometime\b|\bone of these days\b`,
  ],
  'i',
);

export const SUGGESTION_ZH = alt([
  '应该单独开个会',
  '也该写个复盘|该写个复盘',
  '要是能[^，。]{1,16}就好了',
  '希望别再',
  '^想来个',
]);

/**
 * Time words that do not date an event: "already", "finally", "终于", "已经", "之前". "I finally cleaned out
 * the fridge" and "我之前说过啦" happened at no time a question can ask for; with a value or another time cue
 * the sentence is kept by that.
 */
export const UNDATED_EN = /^(?:already|finally)$/i;
export const UNDATED_ZH = /^(?:已经|终于|之前)$/;

/**
 * A one-off request to whoever is listening, not a fact: "whoever moves the X port next time, please
 * announce it", "add it to the retro list", "set a reminder", "有空帮我看下X的合并请求吗，改动很小".
 */
export const ONE_OFF_MORE_EN = alt(
  [
    String.raw`^whoever\b`,
    String.raw`^(?:\w+,?\s+)?(?:add|put|move|set)\s+(?:it|that|this|them|a reminder)\b`,
    String.raw`^(?:can|could) you help me\b`,
    String.raw`^(?:help me|remind me to think)\b`,
  ],
  'i',
);

export const ONE_OFF_MORE_ZH = alt(['^有空帮我', '帮我看下', '吗[，,]']);

/**
 * A question about the chatter itself: how someone felt, what they complained or joked about, what was
 * chatted about ("what did I complain about last week?", "was Tom annoyed about the build?", "我上次吐槽了什么",
 * "他心情怎么样"). Recall quotes a turn the rules dropped as chatter only for such a question
 * (recall/withheld.ts).
 */
export const ABOUT_CHATTER = alt(
  [
    String.raw`\b(?:complain(?:ed|ing|s|t)?|vent(?:ed|ing)?|rant(?:ed|ing)?|grumbl(?:e|ed|ing)|moan(?:ed|ing)?)\b`,
    String.raw`\b(?:frustrat(?:ed|ing|ion)|annoy(?:ed|ing|ance)|angry|upset|mad at|fed up|stressed|mood|feel(?:s|ing)?|felt)\b`,
    String.raw`\b(?:small talk|chit-?chat|chatted|joked?|joking|greet(?:ed|ing)?)\b`,
    String.raw`\b(?:unsure|not sure|hesitat(?:e|ed|ing)|on the fence|maybe|undecided)\b`,
    '抱怨',
    '吐槽',
    '发牢骚',
    '生气',
    '烦',
    '崩溃',
    '心情',
    '感觉',
    '情绪',
    '闲聊',
    '开玩笑',
    '犹豫',
    '拿不准',
    '不确定',
  ],
  'i',
);
