/**
 * `mnemo.reembedMemories`: after the embedding model changed, re-embeds every memory with the new model
 * (progress, cancellable); the store switches over only when all are done.
 */
import * as vscode from 'vscode';
import { ReembedRequest } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import { Command } from '../commandIds';

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.reembedMemories, async () => {
    const r = await ctx.requestWithProgress(ReembedRequest, {}, 'Mnemo: re-embedding memories');
    const msg =
      r.migrated === 0 && !r.previous
        ? `Mnemo: memories already use ${r.model}; nothing to re-embed.`
        : `Mnemo: re-embedded ${r.migrated} memories with ${r.model} (${r.dim} dimensions); the previous collection is kept.`;
    void vscode.window.showInformationMessage(msg);
    return r;
  });
}
