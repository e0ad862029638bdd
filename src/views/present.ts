/** How a memory looks everywhere (tree, review queue, pickers): icon, tooltip, decorations (the strings are in shared/memoryText.ts). */
import * as vscode from 'vscode';
import type { Memory, MemoryStatus } from '../../sidecar/model';
import { config } from '../config';
import { projectLabel } from '../projects';
import { ContextValue } from '../shared/contextValues';
import { CATEGORY_ICON, LOW_CONFIDENCE, stateIcon, tooltipRows } from '../shared/memoryText';

export {
  accessibilityLabel,
  CATEGORY_DETAIL,
  CATEGORY_ICON,
  CATEGORY_LABEL,
  description,
  flagged,
  LOW_CONFIDENCE,
  marks,
  matchedBy,
  percent,
  shortText,
  SOURCE_ICON,
  SOURCE_LABEL,
  STATUS_LABEL,
} from '../shared/memoryText';

export const STATUS_CONTEXT: Record<MemoryStatus, ContextValue> = {
  active: ContextValue.MemoryActive,
  pending: ContextValue.MemoryPending,
  confirmed: ContextValue.MemoryConfirmed,
  wrong: ContextValue.MemoryWrong,
  archived: ContextValue.MemoryArchived,
  superseded: ContextValue.MemoryArchived, // like archived: kept for history, never recalled
};

/**
 * A memory's icon: its state by shape first (wrong, pending, low confidence, confirmed, archived each have
 * their own), so it reads at any width, in any theme and without colour (WCAG 1.4.1); colour only repeats
 * it. An ordinary memory shows its category.
 */
export function icon(m: Memory): vscode.ThemeIcon {
  const [id, color] = stateIcon(m) ?? [CATEGORY_ICON[m.category] ?? 'note', undefined];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

function esc(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

export function tooltip(m: Memory): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.supportHtml = false;
  md.isTrusted = false;
  md.appendMarkdown(`${esc(m.text)}\n\n---\n\n`);
  const rows = tooltipRows(m, { projectLabel, timeZone: config.display.timeZone() });
  md.appendMarkdown(rows.map(([k, v]) => `**${k}:** ${esc(v)}`).join('  \n'));
  return md;
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

/**
 * Colours the label of wrong (error), pending (warning) and low-confidence (dimmed) memories. No letter
 * badges: what a mark means is said in words in the description, the tooltip and the screen-reader label.
 */
export class MemoryDecorations implements vscode.FileDecorationProvider {
  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== DECORATION_SCHEME) return undefined;
    const f = uri.query;
    const [tooltip, color] = f.includes('w')
      ? ['Marked wrong', 'errorForeground']
      : f.includes('p')
        ? ['Pending review', 'list.warningForeground']
        : f.includes('l')
          ? ['Low confidence', 'disabledForeground']
          : [undefined, undefined];
    if (!color) return undefined;
    return new vscode.FileDecoration(undefined, tooltip, new vscode.ThemeColor(color));
  }
}
