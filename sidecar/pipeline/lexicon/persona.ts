/**
 * Persona: who the user is and how they like things (docs/design.md, Extraction with an LLM: persona).
 * A match keeps the sentence as a persona memory.
 */
import { alt } from './build';

/** How answers should look: "回答要简洁", "用表格输出", "keep it brief", "answers in bullet points". */
export const STYLE = alt(
  [
    '(?:回答|回复|输出|解释|说明|总结|答复)[^。！？!?]{0,12}?(?:简洁|简短|简单点|详细|列表|表格|中文|英文|markdown|要点|分点)',
    '(?:用|以)(?:简洁|简短|详细|列表|表格|中文|英文|markdown|要点|分点)[^。！？!?]{0,8}?(?:回答|回复|输出|形式|方式|格式)',
    '\\b(?:answers?|repl(?:y|ies)|respon(?:d|ses?)|explanations?|output)\\b[^.!?]{0,24}?\\b(?:concise|brief|short|detailed|bullet(?: points)?|lists?|tables?|in chinese|in english|terse|markdown)\\b',
    '\\b(?:keep it|be) (?:concise|brief|short|terse)\\b',
  ],
  'i',
);

/** Chinese preferences and habits: "我习惯用vim", "我比较喜欢深色主题", "不要给我推荐nano", "我的习惯是…". */
export const PREFERENCE_ZH = alt([
  // a sentence that opens with the verb (subject dropped): "喜欢用 pnpm"
  String.raw`^(?:比较|更|最|很|超)?(?:喜欢|偏好|偏爱|习惯用|讨厌|不喜欢|爱用|惯用)`,
  // "我(们)一般用…", "我最喜欢…", "我只用…"
  String.raw`我(?:们)?(?:比较|更|一般|平时|通常|一直|总是|向来|个人|最)?(?:喜欢|偏好|偏爱|习惯|倾向于?|讨厌|不喜欢|爱用|常用|惯用|只用|一直用|都用)`,
  // "别再给我推荐…"
  String.raw`(?:不要|别|不用|不必)(?:再)?给我(?:推荐|用|建议|写)`,
  String.raw`我的(?:偏好|习惯)`,
]);

/** English preferences and habits: "I prefer tabs", "my favourite editor is vim", "never suggest nano". */
export const PREFERENCE_EN = alt(
  [
    String.raw`\bI\s+(?:(?:always|usually|mostly|generally|really|only|normally|typically|much|strongly)\s+)?(?:prefer|like|love|hate|dislike|use|work with|stick with|go with|write|edit)\b`,
    String.raw`\bmy\s+(?:favou?rite|preferred|go-to|default)\b`,
    String.raw`\bI(?:'m| am)\s+(?:used to|a fan of|comfortable with)\b`,
    String.raw`\b(?:never|don't|do not|stop)\s+(?:suggest|recommend|give|show|offer)(?:ing)?\b`,
  ],
  'i',
);

/** Chinese identity and role: "我是后端工程师", "我负责支付网关", "我的角色是…". */
export const IDENTITY_ZH = alt([
  // "我是一名运维工程师", "我们目前是测试组" (not "我是说", "我是觉得")
  String.raw`我(?:们)?(?:是|在|现在是|目前是)(?!说|想|不是|觉得|问|看)(?:一[名个位])?[^，。,]{0,14}?(?:工程师|开发|程序员|架构师|运维|测试|经理|负责人|学生|研究员|设计师|产品|DBA|SRE|组长|主管|专家|实习生|新人|leader)`,
  String.raw`我(?:负责|在做|主要做|目前在做|正在做|从事|叫)`,
  String.raw`我的(?:职位|角色|岗位|工作|项目)是`,
  // "我在一家互联网公司做运营"
  String.raw`我在[^，。,]{1,12}(?:公司|单位|医院|学校|银行|工厂|厂)(?:做|上班|工作|当)`,
]);

/** English identity and role: "I'm a backend engineer", "I work on the payments team", "my role is…". */
export const IDENTITY_EN = alt(
  [
    String.raw`\bI(?:'m| am)\s+(?:a|an|the)\s+(?:[\w-]+\s+){0,3}?(?:engineer|developer|dev|programmer|architect|admin|administrator|sre|devops|manager|lead|student|researcher|designer|analyst|scientist|maintainer|owner|intern|consultant)\b`,
    String.raw`\bI\s+work\s+(?:on|at|as|in|for)\b`,
    String.raw`\bmy\s+(?:role|job|team|title|position)\s+is\b`,
    String.raw`\bI(?:'m| am)\s+(?:responsible for|in charge of|working on)\b`,
  ],
  'i',
);
