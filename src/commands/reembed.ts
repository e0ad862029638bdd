/**
 * `mnemo.reembedMemories`: after the embedding model changed, re-embeds every memory with the new model
 * (progress, cancellable); the store switches over only when all are done.
 */
import { ReembedRequest } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { Command } from '../commandIds';

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.reembedMemories, async () => {
    const r = await ctx.requestWithProgress(ReembedRequest, {}, 'Mnemo: re-embedding memories');
    views.statusBar.flash(
      r.migrated === 0 && !r.previous
        ? `Memories already use ${r.model}; nothing to re-embed`
        : `Re-embedded ${r.migrated} memories with ${r.model} (${r.dim} dimensions); the previous collection is kept`,
    );
    return r;
  });
}
