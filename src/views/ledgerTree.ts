/**
 * `mnemo.views.ledger`, "What My Agents Saw": the latest recalls served to agents and people in the
 * workspace's projects (every project when no folder is open) — client, time, query — each expanding to
 * the memories and turns it served, as they read now. Selecting a recall opens its page (documents.ts,
 * `mnemo:/served/…`); selecting a memory opens its details. Reloads on `mnemo/ledger/changed` and with
 * the other views (views/index.ts).
 */
import * as vscode from 'vscode';
import { LedgerListRequest, type LedgerEntry, type LedgerItem } from '../../sidecar/protocol';
import { Command } from '../commandIds';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { workspaceProjectIds } from '../projects';
import { formatLocalWithUtc } from '../time';
import { ContextKey, ContextValue } from '../shared/contextValues';
import { ListTreeProvider } from './listTree';
import {
  clientName,
  entryAccessibilityLabel,
  entryDescription,
  entryLabel,
  itemDescription,
  itemLabel,
  SURFACE_ICON,
  SURFACE_LABEL,
} from './ledgerText';

/** The view lists this many recalls, newest first. */
export const LEDGER_LIMIT = 100;

export type LedgerNode =
  | { kind: 'served'; id: string; entry: LedgerEntry }
  | { kind: 'servedItem'; id: string; entry: LedgerEntry; item: LedgerItem };

export class LedgerTreeProvider
  extends ListTreeProvider<LedgerNode>
  implements vscode.TreeDataProvider<LedgerNode>
{
  constructor(ctx: Ctx) {
    super(ctx, 'Loading what agents saw', ContextKey.LedgerEmpty);
  }

  getTreeItem(node: LedgerNode): vscode.TreeItem {
    if (node.kind === 'served') {
      const e = node.entry;
      const item = new vscode.TreeItem(
        entryLabel(e),
        e.items.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = node.id;
      item.description = entryDescription(e);
      item.iconPath = new vscode.ThemeIcon(SURFACE_ICON[e.served_to.surface] ?? 'question');
      item.contextValue = ContextValue.Served;
      item.accessibilityInformation = { label: entryAccessibilityLabel(e), role: 'treeitem' };
      item.command = { command: Command.showServedRecall, title: 'Show What Was Served', arguments: [e.id] };
      return item;
    }
    const i = node.item;
    const item = new vscode.TreeItem(itemLabel(i), vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    item.description = itemDescription(i);
    item.iconPath = new vscode.ThemeIcon(i.kind === 'evidence' ? 'quote' : 'note');
    item.contextValue = ContextValue.ServedItem;
    item.tooltip = `${i.text ?? `${i.id} is no longer stored.`}\n\n${itemDescription(i)} · ${i.id}`;
    // A memory that still exists opens its details; a turn (or what is gone) the recall's page.
    item.command =
      i.kind === 'memory' && i.text !== undefined
        ? {
            command: Command.showMemory,
            title: 'Show Memory Details',
            arguments: [i.id, undefined, { preserveFocus: true }],
          }
        : { command: Command.showServedRecall, title: 'Show What Was Served', arguments: [node.entry.id] };
    return item;
  }

  /** A recall's tooltip (who, through what, when, the whole query), built when the pointer rests on it. */
  resolveTreeItem(item: vscode.TreeItem, node: LedgerNode): vscode.TreeItem {
    if (node.kind !== 'served' || item.tooltip) return item;
    const e = node.entry;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${clientName(e)}** through ${SURFACE_LABEL[e.served_to.surface]} (`);
    md.appendText(e.served_to.tool ?? 'recall');
    md.appendMarkdown(`)  \n${formatLocalWithUtc(e.at, config.display.timeZone())}  \n`);
    if (e.query) md.appendText(e.query);
    md.appendMarkdown(`\n\n${e.items.length} served, ${e.tokens} tokens`);
    item.tooltip = md;
    return item;
  }

  getParent(node: LedgerNode): LedgerNode | undefined {
    if (node.kind === 'served') return undefined;
    return { kind: 'served', id: `s:${node.entry.id}`, entry: node.entry };
  }

  async getChildren(node?: LedgerNode): Promise<LedgerNode[]> {
    if (node?.kind === 'served')
      return node.entry.items.map((item, n) => ({
        kind: 'servedItem',
        id: `s:${node.entry.id}:${n}`,
        entry: node.entry,
        item,
      }));
    if (node || !this.ctx.isRunning) return [];
    return this.rows();
  }

  protected async load(): Promise<LedgerNode[]> {
    const projects = workspaceProjectIds();
    const { entries } = await this.ctx.request(LedgerListRequest, {
      limit: LEDGER_LIMIT,
      ...(projects.length ? { project_ids: projects } : {}),
      with_text: true,
    });
    return entries.map((entry) => ({ kind: 'served', id: `s:${entry.id}`, entry }));
  }
}
