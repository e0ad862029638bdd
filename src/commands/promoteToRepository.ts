/**
 * "Mnemo: Promote to Repository…" (`mnemo.promoteToRepository`): confirmed memories of a project written
 * into a section Mnemo owns in its AGENTS.md (or CLAUDE.md, .github/copilot-instructions.md), so the team
 * shares them through git review. Shown as a diff, written after a yes; each memory then carries
 * `file:<instruction file>` in its provenance, an update the audit log records.
 */
import { Command } from '../commandIds';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { INSTRUCTION_FILES } from '../../sidecar/shared/connect';
import { planChange, readIfExists } from '../../sidecar/shared/fileChange';
import { promotedIds, promotionChoices, renderPromoted } from '../../sidecar/shared/promote';
import type { Memory } from '../../sidecar/model';
import { ListRequest, UpdateRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import { UserError } from '../errors';
import { projectIdOfPath, projectLabel } from '../projects';
import { CATEGORY_LABEL, shortText } from '../views/present';
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
    const inSection = new Set(promotedIds(before));
    // The file's own rules (imported from it) are in it already: never offered back.
    const { offer, already } = promotionChoices(confirmed, fileName);
    if (offer.length === 0)
      throw new UserError(
        `Every confirmed memory of this project came from ${fileName} itself (${already.length}); there is nothing to add to it.`,
      );
    const fromArg =
      (arg as { memory?: Memory } | undefined)?.memory?.id ?? (typeof arg === 'string' ? arg : undefined);
    const leftOut = already.length
      ? ` · ${already.length} already in ${fileName} (line ${already
          .map((a) => a.line)
          .sort((a, b) => a - b)
          .join(', ')}) left out`
      : '';
    const picks = await vscode.window.showQuickPick(
      offer.map((m) => ({
        label: shortText(m.text, 120),
        description: `${projectLabel(m.project_id)} · ${CATEGORY_LABEL[m.category] ?? m.category}`,
        detail: inSection.has(m.id) ? `already in Mnemo's section of ${fileName}` : undefined,
        picked: inSection.has(m.id) || m.id === fromArg,
        memory: m,
      })),
      {
        canPickMany: true,
        title: `Mnemo: Promote to ${fileName}`,
        placeHolder: `Confirmed memories to keep in ${fileName}${leftOut}`,
      },
    );
    if (!picks || picks.length === 0) return;
    const chosen = picks.map((p) => p.memory);
    if (
      !(await proposeChanges(
        ctx,
        [planChange(file, renderPromoted(before, chosen, file))],
        `Promote ${chosen.length} ${chosen.length === 1 ? 'memory' : 'memories'} to ${fileName}`,
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
      `${chosen.length} ${chosen.length === 1 ? 'memory is' : 'memories are'} in Mnemo's section of ${fileName}; review and commit it with git.`,
    );
  });
}
