/**
 * `mnemo.showServedRecall`: one recall served to an agent or a person, rendered from the ledger (when, to
 * whom, the query, each memory as it reads now). From "What My Agents Saw" (a row, its id), or from the
 * palette: a pick of the latest recalls.
 */
import * as vscode from 'vscode';
import { LedgerListRequest, type LedgerEntry } from '../../sidecar/protocol';
import { BuiltinCommand, Command } from '../commandIds';
import type { Ctx } from '../ctx';
import { UserError } from '../errors';
import { workspaceProjectIds } from '../projects';
import { entryDescription, entryLabel } from '../views/ledgerText';
import { servedUri } from '../views/documents';

type Served = Pick<LedgerEntry, 'id' | 'served_to'>;

/** A ledger entry from what the command was given: the entry, its tree node, or its id. */
function entryOf(arg: unknown): Served | string | undefined {
  if (typeof arg === 'string' && arg.startsWith('srv_')) return arg;
  const o = arg as { entry?: Served; id?: unknown; served_to?: unknown } | undefined;
  if (o?.entry?.id) return o.entry;
  if (typeof o?.id === 'string' && o.served_to) return o as Served;
  return undefined;
}

async function pick(ctx: Ctx): Promise<Served | undefined> {
  const projects = workspaceProjectIds();
  const { entries } = await ctx.request(LedgerListRequest, {
    limit: 50,
    ...(projects.length ? { project_ids: projects } : {}),
  });
  if (entries.length === 0) throw new UserError('Nothing was served to an agent or a person yet.');
  const chosen = await vscode.window.showQuickPick(
    entries.map((e) => ({ label: entryLabel(e), description: entryDescription(e), entry: e })),
    { title: 'Mnemo: What My Agents Saw', placeHolder: 'A recall to show', matchOnDescription: true },
  );
  return chosen?.entry;
}

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.showServedRecall, async (arg?: unknown) => {
    const given = entryOf(arg);
    const entry =
      typeof given === 'string'
        ? ((await ctx.request(LedgerListRequest, { entry_id: given })).entries[0] ?? {
            id: given,
            served_to: { surface: 'other', name: 'served' },
          })
        : (given ?? (await pick(ctx)));
    if (!entry) return undefined;
    const uri = servedUri(entry);
    const doc = await vscode.workspace.openTextDocument(uri);
    // Rendered, not raw Markdown: the table reads as a page.
    await vscode.commands.executeCommand(BuiltinCommand.markdownPreview, uri);
    return doc;
  });
}
