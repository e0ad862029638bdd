/**
 * `mnemo.editMemory`: the edit form (views/editForm.ts) with the memory's current values; only what changed
 * is saved, and the status bar says what. `mnemo.editMemoryText`: the fast path for the text alone, one
 * input box; category, confidence, actionable and sources are left exactly as they are.
 */
import * as vscode from 'vscode';
import { UpdateRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import { Command } from '../commandIds';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { editPatch, formValues, savedMessage } from '../views/editPatch';
import { resolveMemories } from './pick';

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.editMemory, async (...args: unknown[]) => {
    const [memory] = (await resolveMemories(ctx, views, args, { title: 'Mnemo: Edit Memory' })) ?? [];
    if (!memory) return undefined;
    return views.editForms.open(memory);
  });

  ctx.registerCommand(Command.editMemoryText, async (...args: unknown[]) => {
    const [memory] = (await resolveMemories(ctx, views, args, { title: 'Mnemo: Edit Memory Text' })) ?? [];
    if (!memory) return undefined;
    const openForm: vscode.QuickInputButton = {
      iconPath: new vscode.ThemeIcon('edit'),
      tooltip: 'Edit everything (category, confidence, sources…)',
    };
    const input = vscode.window.createInputBox();
    input.title = 'Mnemo: Edit Memory Text';
    input.prompt = 'Only the text changes; category, confidence, actionable and sources stay as they are.';
    input.value = memory.text;
    input.ignoreFocusOut = true;
    input.buttons = [openForm];
    const text = await new Promise<string | undefined | 'form'>((resolve) => {
      input.onDidChangeValue(
        (v) => (input.validationMessage = v.trim() ? undefined : 'The text cannot be empty.'),
      );
      input.onDidTriggerButton(() => resolve('form'));
      input.onDidAccept(() => {
        if (input.value.trim()) resolve(input.value);
      });
      input.onDidHide(() => resolve(undefined));
      input.show();
    });
    input.dispose();
    if (text === 'form') return views.editForms.open(memory);
    if (text === undefined) return undefined;
    const before = formValues(memory);
    const patch = editPatch(before, { ...before, text });
    if (!patch.text) {
      views.statusBar.flash('Nothing changed');
      return memory;
    }
    const updated = await ctx.request(UpdateRequest, {
      id: memory.id,
      patch: { text: patch.text },
      by: currentUser(),
    });
    views.statusBar.flash(savedMessage(memory, { text: patch.text }));
    return updated;
  });
}
