/**
 * Persona and episodic facts of a person's life (issue 17; docs/design.md, Rules: persona and episodic
 * facts): preferences and favourites, possessions, family and pets, plans and commitments, quantities and
 * prices, and the passing remarks (weather, tiredness, a closing line) that are not facts. A match of a
 * fact table keeps the sentence; a passing remark without a fact is dropped.
 */
import { alt, group, words } from './build';

/** Subjects that make a sentence first person: "I", "we", "my", "our"; "我", "我们", "咱们". */
export const FIRST_PERSON_EN = /\b(?:I|I'm|I've|I'd|I'll|we|we're|we've|we'll|my|our|me|us)\b/i;
export const FIRST_PERSON_ZH = /我|咱|俺/;

/** Likes and favourites beyond "I like / I prefer": "I'm really into X", "X is my go-to", "I can't stand X". */
export const LIKES_EN = alt(
  [
    String.raw`\bI(?:'m| am)\s+(?:really\s+|so\s+|totally\s+|kind of\s+)?(?:into|obsessed with|hooked on|crazy about)\b`,
    String.raw`\bI(?:'ve| have)\s+been\s+(?:really\s+)?(?:into|obsessed with|hooked on|loving)\b`,
    String.raw`\b(?:one of|is|are)\s+my\s+(?:all-time\s+)?(?:favou?rites?|go-to|comfort food|guilty pleasure)\b`,
    String.raw`\bI\s+(?:can't|cannot|can not)\s+stand\b`,
    String.raw`\bI(?:'m| am)\s+(?:a\s+)?(?:big|huge)\s+fan\s+of\b`,
    String.raw`\bI\s+(?:only|never|always|usually|mostly)\s+(?:drink|eat|read|wear|listen to|watch|order|cook|buy|take)\b`,
    String.raw`\bhow I (?:take|like|drink|make) my\b`,
    String.raw`\bI\s+(?:adore|enjoy|can't get enough of)\b`,
    // someone else's: "my friend Imke is really into trail running lately", "Jo is into sourdough baking now"
    String.raw`\b(?:is|are)\s+(?:really\s+|so\s+)?(?:into|obsessed with|hooked on)\s+[a-z]`,
  ],
  'i',
);

/** Chinese likes and favourites beyond "我喜欢": "我最爱的…", "我不吃…", "迷上了…", "咖啡我只喝…". */
export const LIKES_ZH = alt([
  // "我最爱的歌手", "我特别爱吃", "我平时更喜欢"
  String.raw`我(?:们)?(?:[\u4e00-\u9fff]{0,3})?(?:最爱|爱吃|爱喝|爱看|爱听|喜欢|偏爱|钟爱)`,
  String.raw`(?:我|就)(?:从来)?(?:不吃|不喝|只吃|只喝|只用|只穿|只听|只看)`,
  String.raw`迷上了|爱上了|上瘾了|入坑了`,
  String.raw`最喜欢的`,
  String.raw`(?:喜欢|爱)(?:喝|吃)[\u4e00-\u9fff]`, // "老孙喜欢喝浓茶"
]);

/** Possessions: "I have a 2015 Subaru", "we own a cabin", "I bought a kayak", "my laptop is a ThinkPad". */
export const POSSESSION_EN = alt(
  [
    // the count needs its noun ("I own four, they are all at home" is no possession), and "a story",
    // "a question", "a problem" are not things owned
    String.raw`\b(?:I|we)\s+(?:just\s+|finally\s+|recently\s+)?(?:have|own|bought|got|keep|inherited|picked up)\s+(?:a|an|two|three|four|five|some|my|our|this|that|\d+)\b(?!\s*(?:[,.;!?]|$))(?!\s+(?:\w+\s+)?(?:story|question|idea|feeling|problem|meeting|call|minute|minutes|sec|second|moment|chance|bit|lot|look|word|thought|point|guess|hunch|theory|request|plan)\b)`,
    String.raw`\b(?:my|our)\s+(?:new\s+|old\s+)?[a-z]+\s+is\s+(?:a|an)\s`,
    String.raw`\bour\s+(?:apartment|house|flat|place|garden|car|home)\s+has\b`,
    String.raw`\bregrets?\s+buying\b`, // "my coworker Dev already regrets buying a used road bike"
  ],
  'i',
);

/** Chinese possessions: "我有一辆…", "家里有一台…", "我买了…", "入手了…", "我收藏了…", "我的电脑是…". */
export const POSSESSION_ZH = alt([
  // the count needs its noun ("我有四把，全在家里"), and "有个好笑的事" is no possession
  String.raw`我(?:们)?(?:家)?(?:里|在[\u4e00-\u9fff]{1,4})?有(?:一|两|三|四|五|几|个|\d)(?![一二两三四五六七八九十几\d]*[把个只台本张件辆条双套]?(?:[，。,!！]|$))(?!个?(?:好笑|有趣|问题|想法|主意|事|会))`,
  String.raw`家里有(?:一|两|三|个|\d)`,
  String.raw`我(?:们)?(?:刚|最近|终于)?(?:买了|入手了|收藏了|换了一|租了一)`,
  String.raw`我(?:们家)?的[\u4e00-\u9fff]{1,4}是`,
  String.raw`养了[\u4e00-\u9fff\d]{0,4}(?:盆|只|条|棵)`,
  String.raw`后悔买`, // "我的同事小何已经后悔买一台投影仪了"
]);

/** Relatives and pets in English. */
const KIN_EN = [
  'mom',
  'mum',
  'mother',
  'dad',
  'father',
  'parents',
  'sister',
  'brother',
  'brothers',
  'sisters',
  'wife',
  'husband',
  'partner',
  'girlfriend',
  'boyfriend',
  'son',
  'daughter',
  'kids?',
  'children',
  'twins',
  'baby',
  'cousin',
  'aunt',
  'uncle',
  'niece',
  'nephew',
  'grandmother',
  'grandfather',
  'grandma',
  'grandpa',
  'granddad',
  'in-laws',
  'dog',
  'cat',
  'puppy',
  'kitten',
  'parrot',
  'rabbit',
  'hamster',
  'fish',
];

/** Family and pets: "my sister Jenna lives in Denver", "our dog Biscuit", "we adopted a tabby", "a parrot called Kiwi". */
export const FAMILY_EN = alt(
  [
    String.raw`\b(?:my|our)\s+(?:\w+\s+)?` + group(KIN_EN) + String.raw`\b`,
    String.raw`\b(?:I|we)\s+(?:just\s+)?(?:adopted|rescued)\b`,
    String.raw`\b(?:called|named)\s+[A-Z][a-z]+`,
    String.raw`\bwhen I was (?:a kid|little|young|a child)\b`,
    // a pet someone got: "my neighbor Walt finally got a parrot, Waffles", "Farah finally got a puppy"
    String.raw`\b(?:got|adopted|rescued|bought)\s+(?:a|an|another|a second)\s+(?:\w+\s+)?(?:dog|cat|puppy|kitten|parrot|rabbit|hamster|tortoise|turtle|gecko|canary|bird|lizard)\b`,
  ],
  'i',
);

/** Relatives and pets in Chinese. */
const KIN_ZH = [
  '爸',
  '妈',
  '父母',
  '爷爷',
  '奶奶',
  '外公',
  '外婆',
  '姥姥',
  '姥爷',
  '姐',
  '哥',
  '弟',
  '妹',
  '表姐',
  '表哥',
  '表妹',
  '表弟',
  '堂',
  '老公',
  '老婆',
  '妻子',
  '丈夫',
  '媳妇',
  '对象',
  '女朋友',
  '男朋友',
  '儿子',
  '女儿',
  '孩子',
  '闺女',
  '老大',
  '老二',
  '宝宝',
  '舅',
  '姑',
  '姨',
  '叔',
  '猫',
  '狗',
  '鹦鹉',
  '兔子',
];

/** Chinese family and pets: "我女儿今年…", "我家那只橘猫叫胖虎", "表姐上个月搬去杭州了", "我养了一只鹦鹉". */
export const FAMILY_ZH = alt([
  String.raw`我(?:们)?(?:家)?(?:的|那只|那条|的那只)?(?:[\u4e00-\u9fff]{0,2})?` + group(KIN_ZH),
  String.raw`^(?:表|堂)(?:姐|哥|妹|弟)`,
  String.raw`养了(?:一|两|三|只|条)`,
  String.raw`(?:叫|名叫|取名)[\u4e00-\u9fff]{1,3}`,
  String.raw`(?:老师|同事|邻居|室友|医生|教练|领导)姓[\u4e00-\u9fff]`, // "幼儿园老师姓王"
]);

/**
 * Talk with or about a relative that says nothing about them: "I was telling my mom about the band", "my
 * sister keeps sending me recipes", "my brother is still talking about the cat", "我跟我妈说了猫的事",
 * "跟我的老公吃饭永远是美食探险". A family cue with one of these keeps nothing by itself.
 */
export const FAMILY_CHATTER_EN = alt(
  [
    String.raw`\b(?:telling|told|asked|called|texted|messaged)\s+my\b`,
    String.raw`\b(?:keeps?|kept)\s+(?:sending|asking|telling|talking|texting)\b`,
    String.raw`\b(?:sent|showed|gave)\s+me\s+(?:\w+\s+)?(?:photos?|pictures?|pics?|links?|videos?)\b`,
    String.raw`\bstill\s+(?:talking|going on)\s+about\b`,
    String.raw`\bcame up\b|\ba (?:funny|quick|long) story about\b`,
    String.raw`\b(?:dinner|lunch|talking|chatting)\s+with\s+my\b`,
    String.raw`\b(?:visit|call|see)\s+my\s+[^.]{1,30}\bat some point\b`,
    // a relative in a story that names nothing: "my brother bought way too much gear for the new hobby",
    // "my sister made me try their favourite dish", "my nephew called me old", "is still unpacking boxes
    // after the move", "has strong opinions about drinks", "reminded me of my daughter's birthday"
    String.raw`\b(?:bought|buys) way too much\b|\bmade me try\b|\bcalled me\b|\bstill unpacking\b`,
    String.raw`\bstory from my\b|\bkeeps getting better\b|\bbrought their own\b|\bstrong opinions\b`,
    String.raw`\bis very picky\b|\breminded me of\b|\bthoughts about\b|^(?:ok,?\s+)?my \w+ again\b`,
  ],
  'i',
);

export const FAMILY_CHATTER_ZH = alt([
  String.raw`跟我(?:的)?[\u4e00-\u9fff]{1,3}(?:说了|聊|吃饭)`,
  String.raw`给我(?:发了|看了)`,
  String.raw`还在说|天天聊|聊天老是|聊到|有个好笑的事`,
  // "为了新爱好买了一堆装备", "搬完家箱子还没拆完", "讲…的故事越讲越精彩", "让我想起…", "拉我去吃了ta最爱的菜"
  String.raw`买了一堆|箱子还没拆|越讲越|让我想起|拉我去吃|老给我发|一直想给|熟那块|想看一下`,
  String.raw`自己带喝的|特别挑|有主见|说新城市|得找时间去看`,
]);

/** Plans and commitments: "I'm going to Japan in April", "we plan to", "I promised Jenna I would…", "I'll pick up…". */
export const PLAN_EN = alt(
  [
    String.raw`\b(?:I|we)(?:'m| am|'re| are)\s+(?:going to|planning to|planning on|about to|signing up|getting|booking|moving|flying|heading|starting)\b`,
    String.raw`\b(?:I|we)\s+(?:plan|intend|promised|agreed|want|hope|decided)\s+to\b`,
    String.raw`\b(?:I|we)\s+(?:promised|told)\s+\w+(?:\s+\w+)?\s+(?:I|we)\s+would\b`,
    String.raw`\b(?:are|is)\s+booking\b`,
  ],
  'i',
);

/**
 * "I'll …" / "we will …": a plan only with a detail a later question can ask for (see
 * {@link PLAN_DETAIL_EN}), and not a promise about a bare pronoun ("I'll draft it", "I'll keep that in
 * mind"). "I'll drive Mia to her piano lesson on Saturday" is one, "I'll send a photo later", "ok, I'll make a
 * ticket" are not.
 */
export const PLAN_WILL_EN =
  /\b(?:I|we)(?:'ll| will)\s+(?!see\b|think\b|check\b|try\b|let\b)(?!\w+\s+(?:(?:with|on|in|for)\s+)?(?:it|that|this|them|you)\b(?!\s+(?:about|to)\b))\w+/i;

/** The detail of an "I'll …" plan: a day or time, a number, a name, or whose it is ("my", "her"). */
export const PLAN_DETAIL_EN = alt([
  String.raw`\b(?:tomorrow|tonight|today|next|this|before|after|until|by|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in (?:january|february|march|april|may|june|july|august|september|october|november|december|\d{4}))\b`,
  String.raw`\d`,
  String.raw`(?<!^|[.!?]\s*|\bI\b\s*)\b[A-Z][a-z]+`,
  String.raw`\b(?:my|our|his|her|their)\b`,
]);

/** Chinese plans and commitments: "下个月我要去…", "我打算…", "准备…", "答应了…", "计划…", "说好了…". */
export const PLAN_ZH = alt([
  String.raw`打算(?!的)|计划|准备(?!好了)|答应了?|说好了|约好了|报了?名|预订了|订了`,
  String.raw`我(?:们)?(?:下[周个月]|明年|明天|后天|周末|年底|月底)?要(?:去|回|搬|开始|参加|考|买|换|办)`,
  String.raw`(?:下周|下个?月|明年|年底|国庆|五一|春节|暑假|寒假)[\u4e00-\u9fff]{0,4}(?:要|会|准备|打算|可以开始|开始)`,
]);

/** Money and amounts in English: "$1,200", "45 dollars", "300 bucks", "230 euros", "60 an hour", "1,850 a month". */
export const MONEY_EN = alt(
  [
    String.raw`[$€£¥]\s?\d`,
    String.raw`\b\d[\d,.]*\s?(?:k\s)?(?:dollars?|bucks|euros?|pounds?|quid|yuan|rmb|usd|eur|gbp)\b`,
    String.raw`\b\d[\d,.]*\s+(?:a|an|per|each)\s+(?:month|week|year|day|hour|night|session|lesson)\b`,
    String.raw`\b(?:cost|costs|paid|pay|spent|spend|came to|rent is|rent here is)\b[^.]{0,20}\d`,
    String.raw`\bowes?\s+(?:me|you|us|him|her)\s+[$€£¥]?\d`, // "you owe me 1,200"
  ],
  'i',
);

/** Amounts of a life in English: "40 minutes each way", "six hours on weeknights", "25 kilometres a week", "three cups a day", "12 days of vacation", "is 7". */
export const AMOUNT_EN = alt(
  [
    String.raw`\b(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|forty|fifty|a hundred)\s+(?:minutes?|hours?|days?|weeks?|months?|years?|kilomet(?:re|er)s?|km|miles?|cups?|glasses|times|kids|pounds|kg|kilos)\b(?!\s+ago\b)`,
    String.raw`\b(?:is|are|turned|turns)\s+\d{1,2}\b(?!\s*(?:%|ms|s\b|gb|mb))`,
  ],
  'i',
);

/** Chinese numerals, for amounts written in words ("三千五", "一个半小时"). */
const ZH_NUM = String.raw`[\d一二两三四五六七八九十百千万半几]`;

/** Chinese money and amounts: "399块", "三千五", "一千二", "八千多", "六百九", "两杯", "五公里", "七个小时", "六岁". */
export const AMOUNT_ZH = alt([
  `${ZH_NUM}+(?:块|元|块钱|万|千多|百多|刀|美元|欧)`,
  String.raw`(?:花了|房租|租金|一共|总共|打完折|生活费|工资|月薪|年薪|学费|一节课|一晚)[^，。]{0,4}` +
    `${ZH_NUM}`,
  String.raw`[一二两三四五六七八九十百千]+[千百万][一二三四五六七八九]?(?![\u4e00-\u9fff])`,
  `${ZH_NUM}+(?:个)?(?:小时|分钟|公里|杯|次|天|周|年|岁|本|张|盆|斤)`,
]);

/** Time cues of a life's events beyond the work ones: seasons, months, holidays, "back in 2019", "three days ago". */
export const LIFE_TIME_EN = new RegExp(
  words([
    'last (?:weekend|summer|winter|spring|fall|autumn|christmas|easter)',
    'this (?:fall|autumn|spring|summer|winter|weekend)',
    'over (?:christmas|the holidays|the weekend|the summer|easter|new year)',
    'back in \\d{4}',
    'in \\d{4}',
    '(?:in|since) (?:january|february|march|april|may|june|july|august|september|october|november|december)',
    '(?:a|one|two|three|four|five|six|a few|several|\\d+) (?:days?|weeks?|months?|years?) ago',
    'on (?:saturday|sunday|the weekend)',
    'at the (?:start|beginning|end) of the (?:year|month|summer)',
    'this morning',
  ]),
  'i',
);

/** English past tense of life events that en-pos may tag otherwise: "went", "got", "had", "took", "quit". */
export const LIFE_PAST_EN = new RegExp(
  words([
    'went',
    'got',
    'had',
    'took',
    'quit',
    'started',
    'lived',
    'moved',
    'visited',
    'drove',
    'flew',
    'passed',
    'signed',
    'ran',
    'bought',
    'sold',
    'met',
    'married',
    'adopted',
    'finished',
    'joined',
    'left',
    'won',
    'lost',
    'broke',
  ]),
  'i',
);

/** Chinese time cues of a life's events: "上周末", "去年夏天", "三月份", "今年春节", "2020年", "昨晚". */
export const LIFE_TIME_ZH = alt([
  String.raw`上周[一二三四五六日末]?`,
  String.raw`(?:去年|今年|前年)(?:春天|夏天|秋天|冬天|春节|国庆|年初|年底)?`,
  String.raw`[一二三四五六七八九十\d]{1,2}月份`,
  String.raw`\d{4}年`,
  String.raw`昨晚|昨天|前天|前几天|那年|小时候`,
  String.raw`(?:春节|国庆|中秋|五一|暑假|寒假)(?:的时候|期间)?`,
]);

/** Chinese past markers of a life event: "去了", "考下来了", "换了", "住过", "待了". */
export const LIFE_PAST_ZH = /了|过(?![来去])/;

/**
 * Passing remarks that are no fact however they are phrased: weather, tiredness and hunger, crowds and
 * traffic, how a day went, a closing line. "so much rain today", "今天好冷啊", "今天就到这吧".
 */
export const PASSING_EN = alt(
  [
    String.raw`\b(?:rain(?:ing|y)?|snow(?:ing|y)?|freezing|so hot|so cold|humid|windy|sunset|weather)\b`,
    String.raw`\b(?:tired|sleepy|exhausted|starving|hungry|bored)\b`,
    String.raw`\b(?:traffic|the commute was|the train was|the bus was)\b`,
    String.raw`\bwhat a (?:day|week)\b|\b(?:busy|long) (?:day|week)\b`,
    String.raw`\bI feel like\b|\bI never have time\b`,
    String.raw`\bback to work\b|\bthat was (?:a )?fun\b`,
    String.raw`\b(?:useless|as always)\b`,
  ],
  'i',
);

export const PASSING_ZH = alt([
  String.raw`好冷|好热|太冷|太热|真冷|真热|下雨|雨好大|雨太大|天气|降温`,
  String.raw`好累|好困|好饿|太累|累死|困死|饿死|吃得有点撑|撑死`,
  String.raw`堵车|人好多|人太多|挤死`,
  String.raw`一整天|一上午的会|一下午的会|开了一天的会|过得好快`,
  String.raw`就到这|改天再聊|又要麻烦|麻烦你了|感觉我|电梯坏了`,
  String.raw`先下了|先撤了|先走了|去忙了|今天不想说`,
]);
