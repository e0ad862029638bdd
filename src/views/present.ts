/** How a memory looks everywhere (tree, review queue, pickers): label, marks, icon, tooltip. */
import * as vscode from 'vscode';
import type { Category, Memory, MemoryStatus, SourceType } from '../../sidecar/model';
import { projectLabel } from '../projects';
import { formatLocalWithUtc, relativeAge } from '../time';
import { ContextValue } from './contextValues';

export const LOW_CONFIDENCE = 0.5;

export const CATEGORY_LABEL: Record<Category, string> = {
  persona: 'Persona',
  episodic: 'Episodic',
  instruction: 'Instruction',
};

export const CATEGORY_ICON: Record<Category, string> = {
  persona: 'person',
  episodic: 'history',
  instruction: 'checklist',
};

export const SOURCE_LABEL: Record<SourceType, string> = {
  chat: 'Chat',
  terminal: 'Terminal',
  manual: 'Manual',
  import: 'Imported',
  meeting_notes: 'Meeting notes',
  code_comment: 'Code comments',
  troubleshooting_log: 'Troubleshooting',
};

export const SOURCE_ICON: Record<SourceType, string> = {
  chat: 'comment-discussion',
  terminal: 'terminal',
  manual: 'edit',
  import: 'cloud-download',
  meeting_notes: 'notebook',
  code_comment: 'code',
  troubleshooting_log: 'debug',
};

export const STATUS_CONTEXT: Record<MemoryStatus, ContextValue> = {
  active: ContextValue.MemoryActive,
  pending: ContextValue.MemoryPending,
  confirmed: ContextValue.MemoryConfirmed,
  wrong: ContextValue.MemoryWrong,
  archived: ContextValue.MemoryArchived,
};

export function percent(confidence: number): string {
  return `${Math.round(Math.max(0, Math.min(1, confidence)) * 100)}%`;
}

export function shortText(text: string, max = 70): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The marks a memory carries, as words (used in descriptions and screen-reader labels). */
export function marks(m: Memory): string[] {
  const out: string[] = [];
  if (m.status === 'wrong') out.push('wrong');
  else if (m.status === 'pending') out.push('pending');
  else if (m.status === 'confirmed') out.push('confirmed');
  else if (m.status === 'archived') out.push('archived');
  if (m.is_actionable) out.push('actionable');
  if (m.confidence_score < LOW_CONFIDENCE && m.status !== 'wrong') out.push('low confidence');
  return out;
}

export function description(m: Memory): string {
  return [percent(m.confidence_score), relativeAge(m.created_at), ...marks(m)].filter(Boolean).join(' · ');
}

export function icon(m: Memory): vscode.ThemeIcon {
  const color =
    m.status === 'wrong'
      ? new vscode.ThemeColor('errorForeground')
      : m.status === 'pending'
        ? new vscode.ThemeColor('charts.yellow')
        : m.confidence_score < LOW_CONFIDENCE
          ? new vscode.ThemeColor('disabledForeground')
          : undefined;
  return new vscode.ThemeIcon(CATEGORY_ICON[m.category] ?? 'note', color);
}

function esc(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

export function tooltip(m: Memory): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.supportHtml = false;
  md.isTrusted = false;
  md.appendMarkdown(`${esc(m.text)}\n\n---\n\n`);
  const rows: [string, string][] = [
    ['Category', `${CATEGORY_LABEL[m.category] ?? m.category} · ${SOURCE_LABEL[m.source_type] ?? m.source_type}`],
    ['Project', projectLabel(m.project_id) + (m.promoted_from ? ` (promoted from ${m.promoted_from})` : '')],
    ['Status', m.status + (m.confirmed_by ? ` by ${m.confirmed_by}` : '')],
    ['Confidence', `${percent(m.confidence_score)} · score ${m.score.toFixed(1)}/10`],
    ['Actionable', m.is_actionable ? 'yes' : 'no'],
    ['Kept because', m.reason || '—'],
    ['Source', m.source_ref.length ? m.source_ref.join(', ') : '—'],
    ['Seen / used', `${m.times_seen}× seen · ${m.use_count}× used${m.last_used_at ? ` (last ${relativeAge(m.last_used_at)})` : ''}`],
    ['Created', formatLocalWithUtc(m.created_at)],
    ['Updated', formatLocalWithUtc(m.updated_at)],
    ['Added by', m.added_by || '—'],
    ['Id', m.id],
  ];
  md.appendMarkdown(rows.map(([k, v]) => `**${k}:** ${esc(v)}`).join('  \n'));
  return md;
}

export function accessibilityLabel(m: Memory): string {
  return `${CATEGORY_LABEL[m.category] ?? m.category} memory: ${shortText(m.text, 200)}. Confidence ${percent(m.confidence_score)}. ${marks(m).join(', ')}. Created ${relativeAge(m.created_at)}.`;
}

export const DECORATION_SCHEME = 'mnemo-memory';

/** A resourceUri that carries the memory's marks to {@link MemoryDecorations}. */
export function decorationUri(m: Memory): vscode.Uri {
  const flags = [
    m.status === 'wrong' ? 'w' : '',
    m.status === 'pending' ? 'p' : '',
    m.is_actionable ? 'a' : '',
    m.confidence_score < LOW_CONFIDENCE && m.status !== 'wrong' ? 'l' : '',
  ].join('');
  return vscode.Uri.from({ scheme: DECORATION_SCHEME, path: `/${m.id}`, query: flags });
}

/** Badges for actionable (A), pending (P), low confidence (L) and wrong (W) memories. */
export class MemoryDecorations implements vscode.FileDecorationProvider {
  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== DECORATION_SCHEME) return undefined;
    const f = uri.query;
    if (f.includes('w')) return new vscode.FileDecoration('W', 'Marked wrong', new vscode.ThemeColor('errorForeground'));
    const badge = `${f.includes('p') ? 'P' : ''}${f.includes('a') ? 'A' : ''}${f.includes('l') ? 'L' : ''}`.slice(0, 2);
    if (!badge) return undefined;
    const why = [f.includes('p') ? 'pending review' : '', f.includes('a') ? 'actionable' : '', f.includes('l') ? 'low confidence' : '']
      .filter(Boolean)
      .join(', ');
    const color = f.includes('p')
      ? new vscode.ThemeColor('list.warningForeground')
      : f.includes('l')
        ? new vscode.ThemeColor('disabledForeground')
        : undefined;
    return new vscode.FileDecoration(badge, why, color);
  }
}
