/**
 * Formats recalled memories into one injection block (docs/design.md, Recall), under a token budget:
 *
 *   【记忆ID: mem_…】 来源：故障排查日志 | 项目：SCADA-V2.3 | 时间：2024-05-22T14:30:00Z
 *   内容：PLC-3000 通讯中断时 …
 *   置信度：0.92 | 可执行：True
 *
 * English labels unless the locale is Chinese.
 */
import type { Memory, SourceType } from '../model';

const SOURCE_LABELS: Record<SourceType, { zh: string; en: string }> = {
  chat: { zh: '对话', en: 'chat' },
  terminal: { zh: '终端', en: 'terminal' },
  manual: { zh: '手动记录', en: 'manual note' },
  import: { zh: '导入', en: 'import' },
  meeting_notes: { zh: '会议纪要', en: 'meeting notes' },
  code_comment: { zh: '代码注释', en: 'code comment' },
  troubleshooting_log: { zh: '故障排查日志', en: 'troubleshooting log' },
};

export function isChinese(locale: string | undefined): boolean {
  return !!locale && /^zh([-_.]|$)/i.test(locale);
}

/** Rough token estimate that works for mixed Chinese/English: 1 per CJK char, ~1 per 4 other chars. */
export function estimateTokens(text: string): number {
  let cjk = 0;
  let other = 0;
  for (const ch of text) {
    if (/[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/.test(ch)) cjk++;
    else other++;
  }
  return cjk + Math.ceil(other / 4);
}

export function formatMemory(m: Memory, locale?: string): string {
  const zh = isChinese(locale);
  const src = SOURCE_LABELS[m.source_type] ?? { zh: m.source_type, en: m.source_type };
  const conf = m.confidence_score.toFixed(2);
  if (zh) {
    return [
      `【记忆ID: ${m.id}】 来源：${src.zh} | 项目：${m.project_id} | 时间：${m.created_at}`,
      `内容：${m.text}`,
      `置信度：${conf} | 可执行：${m.is_actionable ? 'True' : 'False'}`,
    ].join('\n');
  }
  return [
    `[Memory ID: ${m.id}] Source: ${src.en} | Project: ${m.project_id} | Time: ${m.created_at}`,
    `Content: ${m.text}`,
    `Confidence: ${conf} | Actionable: ${m.is_actionable ? 'True' : 'False'}`,
  ].join('\n');
}

/** Joins formatted memories, best first, stopping before the budget is exceeded. */
export function formatBlock(memories: Memory[], budget: number, locale?: string): { block: string; tokens: number; included: number } {
  const parts: string[] = [];
  let tokens = 0;
  for (const m of memories) {
    const part = formatMemory(m, locale);
    const t = estimateTokens(part) + 1;
    if (tokens + t > budget) break;
    parts.push(part);
    tokens += t;
  }
  return { block: parts.join('\n\n'), tokens, included: parts.length };
}
