/**
 * Showing a memory in the Memories tree: focus the view, pin the memory into its subtree, reveal and select
 * it. VS Code's TreeView.reveal resolves without selecting anything when the workbench has not yet fetched
 * the revealed row (a reload of the tree is still on its way there, which happens under load): the reveal
 * is then made again once the selection has had time to arrive, so that a person who asked to see a memory
 * sees it outlined — unless the person selected another row meanwhile, or revealed another memory. A reveal
 * that still fails on its last try is reported by the command that asked for it.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { BuiltinCommand } from '../commandIds';
import type { Ctx } from '../ctx';
import { errorDetail } from '../errors';
import type { MemoryTreeProvider, TreeNode } from './memoryTree';
import type { RefreshGate } from './refreshGate';

/** Reveals made before giving up on the selection (each then waits up to SELECTION_WAIT_MS for it). */
const ATTEMPTS = 4;
const SELECTION_WAIT_MS = 1500;

/** Counts reveals: a newer one takes over from an older one still retrying. */
let latest = 0;

export async function revealMemory(
  ctx: Ctx,
  gate: RefreshGate,
  memories: MemoryTreeProvider,
  view: vscode.TreeView<TreeNode>,
  memory: Memory,
): Promise<void> {
  const mine = ++latest;
  gate.flushNow(); // a reload due later would rebuild the tree under the reveal
  await vscode.commands.executeCommand(BuiltinCommand.focusMemories);
  for (let attempt = 1; ; attempt++) {
    const node = memories.nodeForMemory(memory);
    const watch = new SelectionWatch(view, node.id); // listens from before the reveal: its own event counts
    try {
      await view.reveal(node, { select: true, focus: true, expand: true });
    } catch (err) {
      watch.dispose();
      if (attempt === ATTEMPTS) throw err; // said to the person by the command
      // A reload raced the reveal (the row's parent chain changed under it): rebuild the tree and go on.
      ctx.log.warn(`Reveal of ${memory.id} failed (${errorDetail(err)}); reloading the tree`);
      memories.refreshAll();
      continue;
    }
    const outcome = await watch.settle(SELECTION_WAIT_MS);
    if (outcome === 'selected') return;
    if (outcome === 'other') {
      ctx.log.info(`Reveal of ${memory.id}: another row was selected meanwhile; not revealing again`);
      return;
    }
    if (mine !== latest) return; // a newer reveal took over
    if (attempt === ATTEMPTS) {
      ctx.log.warn(`Reveal of ${memory.id}: the tree did not select it after ${ATTEMPTS} tries`);
      return;
    }
    ctx.log.info(`Reveal of ${memory.id}: not selected yet (the tree was reloading); revealing again`);
  }
}

/**
 * Watches a view's selection for one row: 'selected' once it holds the row, 'other' when another row was
 * selected instead (the person moved on: not taken back), 'none' when neither happened in time. A selection
 * emptied by a reload is 'none'.
 */
class SelectionWatch {
  private seen: 'selected' | 'other' | undefined;
  private wake: (() => void) | undefined;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly view: vscode.TreeView<TreeNode>,
    private readonly id: string,
  ) {
    this.sub = view.onDidChangeSelection((e) => {
      if (e.selection.some((n) => n.id === id)) this.seen = 'selected';
      else if (e.selection.length > 0) this.seen ??= 'other';
      if (this.seen) this.wake?.();
    });
  }

  /** What happened, waiting up to `ms` from now when nothing has yet; disposes the watch. */
  async settle(ms: number): Promise<'selected' | 'other' | 'none'> {
    if (this.view.selection.some((n) => n.id === this.id)) this.seen = 'selected';
    if (!this.seen) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.dispose();
    return this.seen ?? 'none';
  }

  dispose(): void {
    this.wake = undefined;
    this.sub.dispose();
  }
}
