/**
 * Instructions: decisions, corrections and rules of work (docs/design.md, Extraction with an LLM:
 * instruction). A match keeps the sentence as an instruction memory.
 */
import { alt } from './build';

/** Chinese decisions: "决定用 Postgres", "统一用 pnpm", "以后都改用 Argo", "最终方案是…". */
export const DECISION_ZH = alt([
  '决定',
  '定了',
  '(?:最终)?确定(?:用|采用|使用|为)',
  '选定',
  '选择了',
  '采用',
  '统一(?:用|使用|为|采用)',
  '改用',
  '换成',
  '(?:以后|今后)(?:都|一律|统一)?(?:用|使用|不用|改用)',
  '最终方案',
  '方案是',
  '定下来',
]);

/** English decisions: "we decided to use Postgres", "decision: …", "from now on", "we'll use Argo". */
export const DECISION_EN = alt(
  [
    String.raw`\b(?:we|i|the team|team)\s+(?:have\s+|'ve\s+)?(?:decided|agreed|chose|chosen|picked|settled on|went with|are going with|will go with|standardi[sz]ed on)\b`,
    String.raw`\bdecision\s*:`,
    String.raw`\bgoing forward\b`,
    String.raw`\bfrom now on\b`,
    String.raw`\bstandardi[sz]e on\b`,
    String.raw`\bwe(?:'ll| will) use\b`,
  ],
  'i',
);

/** Chinese corrections: "不是 3 秒而是 5 秒", "其实是驱动的问题", "我记错了", "错了，应该…". */
export const CORRECTION_ZH = alt([
  '不是[^，。]{1,20}?而是',
  '其实是',
  '其实(?!挺|还|蛮|很)', // not "其实挺好的" (an aside)
  '实际上',
  '更正',
  '纠正',
  '搞错了',
  '说错了',
  '弄错了',
  '记错了',
  '应该是[^，。]{1,20}?(?:不是|而不是)',
  '不对[，,]',
  '错了[，,]?应该',
]);

/** English corrections: "actually it's 5 s", "I was wrong", "not 3 but 5", "instead of nano". */
export const CORRECTION_EN = alt(
  [
    // not the intensifier: "it was actually good", "I want to actually get in shape"
    String.raw`\bactually\b(?!\s+(?:good|nice|fun|great|pretty|really|get|worked|works|helps?)\b)(?<!\bto\s+actually)`,
    String.raw`\bcorrection\b`,
    String.raw`\bto correct\b`,
    String.raw`\bi was wrong\b`,
    String.raw`\bthat'?s wrong\b`,
    String.raw`\bnot\s+(?!sure\b|certain\b)[^,.;]{1,30}\s+but\b`, // not the hedge "not sure I agree but fine"
    String.raw`\binstead of\b`,
    String.raw`\brather than\b`,
  ],
  'i',
);

/** Chinese rules and workflows: "必须先备份", "不要直接推 main", "先跑测试再合并", "默认用 UTC". */
export const RULE_ZH = alt([
  '必须',
  '务必',
  '一定要',
  '(?<!怪)不得', // not "怪不得" ("no wonder")
  '不能',
  '禁止',
  '不要',
  '(?<![特区类性个级告分识差])别(?!人|的|处)', // "别推 main", not "别人", "别的", "别处", "特别", "区别"
  '不准',
  '严禁',
  '永远不要',
  '总是',
  '每次',
  '一律',
  '始终',
  '遵循',
  '遵守',
  '规范',
  '约定',
  '原则上',
  '(?<![不都还])记得', // "记得备份", not "不记得" or "都记得"
  // workflows: "需要先…", "发布前先…", "先…再…", "跑完…再…"
  '需要先',
  '前先',
  '之前先',
  '先[^，。]{1,20}?再',
  '先[^。]{1,20}?[，,]\\s*(?:再|然后)', // "发布流程：先灰度百分之十，再全量"
  '完[^，。]{0,4}?(?:再|后)',
  '之后再',
  '默认',
  '应该(?!是|会|能|没)', // "应该先备份" (a rule), not the hedges "应该是/会/能/没"
  '要用',
  '统一',
]);

/** English rules and workflows: "always run the linter", "never push to main", "before deploying, run …". */
export const RULE_EN = alt(
  [
    // not a guess about the past ("should have been", "must have loved that"), not "I don't remember"
    String.raw`\b(?:must|should(?:n't| not)?)\b(?!\s+have\b)`,
    String.raw`\b(?:don't|do not)\b(?!\s+(?:remember|know|think|care|mind|understand|agree|get it|love|like)\b)`,
    // "always run the linter", not an "always" that closes a remark ("behind the VPN, always", "is always pasta")
    String.raw`\b(?:always|never)\b(?!\s*[.!]?$)(?<!\b(?:is|are|was|were)\s+(?:always|never))`,
    String.raw`\b(?:make sure|ensure|remember to|by default|every time|whenever|convention|rule of thumb|follow|required to|need to)\b`,
    String.raw`\bbefore\s+[^,.]{1,40}?,?\s*(?:run|deploy|test|build|check)`,
    String.raw`\bfirst\b[^.]{1,40}?\bthen\b`,
  ],
  'i',
);
