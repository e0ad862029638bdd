/**
 * `mnemo.cleanLowConfidence`: preview memories under 50% confidence (all pre-checked, uncheck to keep),
 * then archive (kept, never recalled) or delete the checked ones.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { CleanPreviewRequest, CleanRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { projectLabel, workspaceProjects } from '../projects';
import { CATEGORY_LABEL, LOW_CONFIDENCE, percent, shortText } from '../views/present';
import { explainReason } from '../shared/reasons';
import { formatLocal, relativeAge } from '../time';
import { config } from '../config';
import { Command } from '../commandIds';

/** The preview (`mnemo/clean/preview`): memories of the workspace projects (and Global) under the threshold. */
export async function lowConfidenceMemories(ctx: Ctx, threshold = LOW_CONFIDENCE): Promise<Memory[]> {
  const lists = await Promise.all(
    workspaceProjects().map((p) => ctx.request(CleanPreviewRequest, { project_id: p.projectId, threshold })),
  );
  const seen = new Set<string>();
  return lists
    .flatMap((l) => l.items)
    .filter((m) => !seen.has(m.id) && seen.add(m.id))
    .sort((a, b) => a.confidence_score - b.confidence_score);
}

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.cleanLowConfidence, async () => {
    const memories = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Mnemo: finding low-confidence memories…' },
      () => lowConfidenceMemories(ctx),
    );
    if (memories.length === 0) {
      views.statusBar.flash(`No memories under ${percent(LOW_CONFIDENCE)} confidence; nothing to clean`);
      return { archived: 0, deleted: 0 };
    }
    const items = memories.map((m) => ({
      label: shortText(m.text, 100),
      description: `${percent(m.confidence_score)} · ${projectLabel(m.project_id)} · ${CATEGORY_LABEL[m.category] ?? m.category}`,
      detail: `${m.status} · created ${formatLocal(m.created_at, config.display.timeZone())} (${relativeAge(m.created_at)}) · used ${m.use_count}× · ${explainReason(m.reason)}`,
      picked: true,
      memory: m,
    }));
    const chosen = await vscode.window.showQuickPick(items, {
      title: `Clean Low-Confidence Memories: ${memories.length} under ${percent(LOW_CONFIDENCE)}`,
      placeHolder: 'Uncheck what to keep (Space toggles), Enter to continue',
      canPickMany: true,
      matchOnDescription: true,
      matchOnDetail: true,
      ignoreFocusOut: true,
    });
    if (!chosen?.length) return { archived: 0, deleted: 0 };
    const action = await vscode.window.showQuickPick(
      [
        {
          label: '$(archive) Archive',
          detail: 'Keep them in the store (and the audit log) but never recall them',
          value: 'archive' as const,
        },
        {
          label: '$(trash) Delete',
          detail: 'Remove them for good (the audit log keeps a record)',
          value: 'delete' as const,
        },
      ],
      { title: `What to do with ${chosen.length} memories?`, ignoreFocusOut: true },
    );
    if (!action) return { archived: 0, deleted: 0 };
    const ids = chosen.map((c) => c.memory.id);
    if (action.value === 'delete') {
      const ok = await vscode.window.showWarningMessage(
        `Delete ${ids.length} memories for good?`,
        { modal: true },
        'Delete',
      );
      if (ok !== 'Delete') return { archived: 0, deleted: 0 };
    }
    const { changed } = await ctx.request(CleanRequest, { ids, action: action.value, by: currentUser() });
    const archived = action.value === 'archive' ? changed : 0;
    const deleted = action.value === 'delete' ? changed : 0;
    views.statusBar.flash(
      action.value === 'delete' ? `Deleted ${deleted} memories` : `Archived ${archived} memories`,
    );
    return { archived, deleted };
  });
}
