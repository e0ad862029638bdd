/**
 * References: a sentence that cites a document, link or page ("参考", "依据", "来自", "see", "according
 * to") has it put into `source_ref` (docs/design.md, Rules: the hard filter).
 */

/** Markers that introduce a reference: "参考《XX手册》", "依据…", "according to RFC 3339", "see docs/setup.md". */
export const REF_MARKER =
  /参考|参照|依据|根据|来自|出自|引自|详见|见|according to|\bsee\b|\bper\b|\brefer to\b|\bas described in\b|\bsource:|\bref:|\bcf\./gi;

/** Chinese document nouns that make a phrase after a marker a reference: "厂家手册第12页", "接口规范". */
export const DOC_NOUN_ZH =
  /手册|文档|规范|标准|说明书|指南|wiki|README|白皮书|章节|报告|纪要|第\s*\d+\s*[页章节条]|规格书|datasheet/i;

/** English document nouns: "the runbook", "section 4.2", "issue #12", "release notes". */
export const DOC_NOUN_EN =
  /\b(?:manual|docs?|documentation|guide|spec|specification|handbook|datasheet|readme|wiki|page\s*\d+|section\s*[\d.]+|chapter\s*\d+|runbook|playbook|report|issue\s*#?\d+|ticket|rfc|changelog|release notes)\b/i;
