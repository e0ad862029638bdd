/**
 * "Mnemo: Promote to Repository…" (`mnemo.promoteToRepository`): confirmed memories of a project written
 * into a section Mnemo owns in its AGENTS.md (or CLAUDE.md, .github/copilot-instructions.md), so the team
 * shares them through git review. Shown as a diff, written after a yes; each memory then carries
 * `file:<instruction file>` in its provenance, an update the audit log records.
 */
import { Command } from '../commandIds';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { INSTRUCTION_FILES } from '../../sidecar/mcp/connect';
import { planChange, readIfExists } from '../../sidecar/mcp/fileChange';
import { promotedIds, renderPromoted } from '../../sidecar/mcp/promote';
import type { Memory } from '../../sidecar/model';
import { ListRequest, UpdateRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import { UserError } from '../errors';
import { projectIdOfPath } from '../projects';
import { proposeChanges } from './proposedChange';

export function register(ctx: Ctx): void {
  ctx.registerCommand(Command.promoteToRepository, async (arg?: unknown) => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length === 0)
      throw new UserError('Open the project folder first: the memories go into its instruction file.');
    const folder =
      folders.length === 1
        ? folders[0]!
        : await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Promote memories of which project?' });
    if (!folder) return;
    const projectId = projectIdOfPath(folder.uri.fsPath);
    const confirmed = (
      await ctx.request(ListRequest, { project_id: projectId, status: ['confirmed'], limit: 10_000 })
    ).items;
    if (confirmed.length === 0)
      throw new UserError(
        'This project has no confirmed memories yet; confirm the ones the team should share first.',
      );
    const fileName = await vscode.window.showQuickPick([...INSTRUCTION_FILES], {
      placeHolder: 'Write them into which instruction file?',
    });
    if (!fileName) return;
    const file = path.join(folder.uri.fsPath, fileName);
    const before = readIfExists(file);
    const already = new Set(promotedIds(before));
    const fromArg =
      (arg as { memory?: Memory } | undefined)?.memory?.id ?? (typeof arg === 'string' ? arg : undefined);
    const picks = await vscode.window.showQuickPick(
      confirmed.map((m) => ({
        label: m.text,
        description: m.id,
        picked: already.has(m.id) || m.id === fromArg,
        memory: m,
      })),
      {
        canPickMany: true,
        placeHolder: `Confirmed memories to keep in ${fileName} (those already there are selected)`,
      },
    );
    if (!picks || picks.length === 0) return;
    const chosen = picks.map((p) => p.memory);
    if (
      !(await proposeChanges(
        ctx,
        [planChange(file, renderPromoted(before, chosen, file))],
        `Promote ${chosen.length} memories to ${fileName}`,
      ))
    )
      return;
    const ref = `file:${fileName}`;
    for (const m of chosen) {
      if (!m.source_ref.includes(ref))
        await ctx.request(UpdateRequest, {
          id: m.id,
          patch: { source_ref: [...m.source_ref, ref] },
          by: currentUser(),
        });
    }
    void vscode.window.showInformationMessage(
      `${chosen.length} memories are in Mnemo's section of ${fileName}; review and commit it with git.`,
    );
  });
}
