/**
 * `mnemo.confirmMemory`, `mnemo.markWrong`, `mnemo.rejectMemory` (review queue: reject = mark wrong,
 * so the candidate is not learned again). One or many (multi-selection). `mnemo.confirmFromFile`: every
 * rule imported from one file, from its group in the review queue, except what the firewall held.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { ConfirmFileRequest, ConfirmRequest, MarkWrongRequest, UpdateRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import type { ReviewNode } from '../views/reviewTree';
import { UserError } from '../errors';
import { shortText } from '../views/present';
import { resolveMemories } from './pick';
import { Command } from '../commandIds';

async function applyAll(
  ctx: Ctx,
  memories: Memory[],
  fn: (m: Memory) => Promise<Memory>,
): Promise<{ done: Memory[]; failed: unknown[] }> {
  const done: Memory[] = [];
  const failed: unknown[] = [];
  await Promise.all(
    memories.map(async (m) => {
      try {
        const updated = await fn(m);
        done.push(updated);
      } catch (err) {
        failed.push(err);
      }
    }),
  );
  if (failed.length && done.length === 0) throw failed[0];
  if (failed.length) ctx.reportError(failed[0], `${failed.length} of ${memories.length} updates`);
  return { done, failed };
}

function what(memories: Memory[]): string {
  return memories.length === 1 ? `“${shortText(memories[0].text, 60)}”` : `${memories.length} memories`;
}

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.confirmMemory, async (...args: unknown[]) => {
    const memories = await resolveMemories(ctx, views, args, {
      title: 'Mnemo: Confirm',
      statuses: ['active', 'pending', 'wrong'],
      many: true,
    });
    if (!memories?.length) return undefined;
    const { done } = await applyAll(ctx, memories, (m) =>
      ctx.request(ConfirmRequest, { id: m.id, by: currentUser() }),
    );
    views.statusBar.flash(`Confirmed ${what(done)}`);
    return done;
  });

  const markWrong = async (title: string, args: unknown[]): Promise<Memory[] | undefined> => {
    const memories = await resolveMemories(ctx, views, args, {
      title,
      statuses: ['active', 'pending', 'confirmed'],
      many: true,
    });
    if (!memories?.length) return undefined;
    const before = new Map(memories.map((m) => [m.id, m]));
    const { done } = await applyAll(ctx, memories, (m) =>
      ctx.request(MarkWrongRequest, { id: m.id, by: currentUser() }),
    );
    void vscode.window
      .showInformationMessage(
        `Marked ${what(done)} as wrong; it will not be recalled or learned again.`,
        'Undo',
      )
      .then(async (choice) => {
        if (choice !== 'Undo') return;
        try {
          await applyAll(ctx, done, (m) => {
            const old = before.get(m.id) ?? m;
            return ctx.request(UpdateRequest, {
              id: m.id,
              patch: { status: old.status, confidence_score: old.confidence_score },
              by: currentUser(),
            });
          });
        } catch (err) {
          ctx.reportError(err, 'Undo mark as wrong');
        }
      });
    return done;
  };
  ctx.registerCommand(Command.confirmFromFile, async (node?: ReviewNode) => {
    if (node?.kind !== 'reviewFile')
      throw new UserError('Choose a file in the Review Queue: its imported rules are confirmed together.');
    const { file, project_id } = node.group;
    const r = await ctx.request(ConfirmFileRequest, { project_id, file, by: currentUser() });
    views.statusBar.flash(
      `Confirmed ${r.confirmed.length} rule${r.confirmed.length === 1 ? '' : 's'} from ${file}${r.held.length ? `; ${r.held.length} held by the firewall wait for you` : ''}`,
    );
    return r;
  });
  ctx.registerCommand(Command.markWrong, (...args: unknown[]) => markWrong('Mnemo: Mark as Wrong', args));
  ctx.registerCommand(Command.rejectMemory, (...args: unknown[]) =>
    markWrong('Mnemo: Reject Pending Memory', args),
  );
}
