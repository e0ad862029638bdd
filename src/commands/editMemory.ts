/**
 * `mnemo.editMemory`: text, category, confidence, actionable and source_ref as a short sequence of
 * input boxes and quick picks (Escape at any step changes nothing), then one `mnemo/memory/update`.
 */
import * as vscode from 'vscode';
import { CATEGORIES, type Category, type Memory } from '../../sidecar/model';
import { UpdateRequest, type UpdateParams } from '../../sidecar/protocol';
import { currentUser } from '../client';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { CATEGORY_LABEL } from '../views/present';
import { resolveMemories } from './pick';
import { Command } from '../commandIds';

const STEPS = 5;

export function register(ctx: Ctx, views: Views): void {
  ctx.registerCommand(Command.editMemory, async (...args: unknown[]) => {
    const [memory] = (await resolveMemories(ctx, views, args, { title: 'Mnemo: Edit Memory' })) ?? [];
    if (!memory) return undefined;
    const patch = await askPatch(memory);
    if (!patch) return undefined;
    if (Object.keys(patch).length === 0) {
      void vscode.window.showInformationMessage('Nothing changed.');
      return memory;
    }
    const updated = await ctx.request(UpdateRequest, { id: memory.id, patch, by: currentUser() });
    void vscode.window.showInformationMessage('Memory updated.');
    return updated;
  });
}

async function askPatch(m: Memory): Promise<UpdateParams['patch'] | undefined> {
  const title = (step: number): string => `Edit Memory (${step}/${STEPS})`;
  const text = await vscode.window.showInputBox({
    title: title(1),
    prompt: 'The memory text',
    value: m.text,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'The text cannot be empty.'),
  });
  if (text === undefined) return undefined;

  const category = await vscode.window.showQuickPick(
    CATEGORIES.map((c) => ({ label: CATEGORY_LABEL[c], description: c === m.category ? 'current' : undefined, value: c as Category })),
    { title: title(2), placeHolder: 'Category', ignoreFocusOut: true },
  );
  if (!category) return undefined;

  const confidence = await vscode.window.showInputBox({
    title: title(3),
    prompt: 'Confidence in percent (0–100)',
    value: String(Math.round(m.confidence_score * 100)),
    ignoreFocusOut: true,
    validateInput: (v) => {
      const n = Number(v);
      return v.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 100 ? undefined : 'Enter a number from 0 to 100.';
    },
  });
  if (confidence === undefined) return undefined;

  const actionable = await vscode.window.showQuickPick(
    [
      { label: 'Actionable', description: m.is_actionable ? 'current' : undefined, detail: 'A step, rule or command an agent can act on', value: true },
      { label: 'Not actionable', description: m.is_actionable ? undefined : 'current', detail: 'Background knowledge', value: false },
    ],
    { title: title(4), placeHolder: 'Is it actionable?', ignoreFocusOut: true },
  );
  if (!actionable) return undefined;

  const refs = await vscode.window.showInputBox({
    title: title(5),
    prompt: 'Sources, comma separated (file:line, msg:<id>, URLs)',
    value: m.source_ref.join(', '),
    ignoreFocusOut: true,
  });
  if (refs === undefined) return undefined;

  const patch: UpdateParams['patch'] = {};
  if (text.trim() !== m.text) patch.text = text.trim();
  if (category.value !== m.category) patch.category = category.value;
  const conf = Math.round(Number(confidence)) / 100;
  if (Math.abs(conf - m.confidence_score) >= 0.005) patch.confidence_score = conf;
  if (actionable.value !== m.is_actionable) patch.is_actionable = actionable.value;
  const sourceRef = refs
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (sourceRef.join('\u0000') !== m.source_ref.join('\u0000')) patch.source_ref = sourceRef;
  return patch;
}
