/**
 * Showing a memory in the Memories tree: focus the view, pin the memory into its subtree, reveal and select
 * it. VS Code's TreeView.reveal resolves without selecting anything when the workbench has not yet fetched
 * the revealed row (a reload of the tree is still on its way there, which happens under load): the reveal
 * is then made again once the selection has had time to arrive, so that a person who asked to see a memory
 * sees it outlined.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { BuiltinCommand } from '../commandIds';
import type { Ctx } from '../ctx';
import { errorDetail } from '../errors';
import type { MemoryTreeProvider, TreeNode } from './memoryTree';
import type { RefreshGate } from './refreshGate';

/** Reveals made before giving up on the selection (each waits up to SELECTION_WAIT_MS for it). */
const ATTEMPTS = 4;
const SELECTION_WAIT_MS = 1500;

export async function revealMemory(
  ctx: Ctx,
  gate: RefreshGate,
  memories: MemoryTreeProvider,
  view: vscode.TreeView<TreeNode>,
  memory: Memory,
): Promise<void> {
  gate.flushNow(); // a reload due later would rebuild the tree under the reveal
  await vscode.commands.executeCommand(BuiltinCommand.focusMemories);
  for (let attempt = 1; ; attempt++) {
    const node = memories.nodeForMemory(memory);
    const selected = selectionOf(view, node.id, SELECTION_WAIT_MS);
    try {
      await view.reveal(node, { select: true, focus: true, expand: true });
    } catch (err) {
      // A reload raced the reveal (the row's parent chain changed under it): rebuild the tree and go on.
      ctx.log.warn(`Reveal of ${memory.id} failed (${errorDetail(err)}); reloading the tree`);
      memories.refreshAll();
    }
    if (view.selection.some((n) => n.id === node.id) || (await selected)) return;
    if (attempt === ATTEMPTS) {
      ctx.log.warn(`Reveal of ${memory.id}: the tree did not select it after ${ATTEMPTS} tries`);
      return;
    }
    ctx.log.info(`Reveal of ${memory.id}: not selected yet (the tree was reloading); revealing again`);
  }
}

/** Resolves true once the view's selection holds the row with this id, false after `ms`. */
function selectionOf(view: vscode.TreeView<TreeNode>, id: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const holds = (): boolean => view.selection.some((n) => n.id === id);
    const done = (value: boolean): void => {
      clearTimeout(timer);
      sub.dispose();
      resolve(value);
    };
    const sub = view.onDidChangeSelection(() => holds() && done(true));
    const timer = setTimeout(() => done(holds()), ms);
  });
}
