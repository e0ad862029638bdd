/**
 * The one way the editor asks for a recall: the workspace's projects, the recall settings and the editor's
 * language for the block's labels. Preview Injection, `@mnemo` and the `mnemo_recall` tool all build their
 * request here, so the preview shows the very block an agent in this editor gets.
 */
import * as vscode from 'vscode';
import type { RecallParams, ServedTo } from '../sidecar/protocol';
import { config } from './config';
import { workspaceProjectIds } from './projects';

/** The language of the block's labels: Chinese in a Chinese editor, else English. */
export function recallLocale(): 'zh' | 'en' {
  return vscode.env.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function recallParams(
  query: string,
  servedTo: ServedTo,
  extra: Partial<Pick<RecallParams, 'top_k' | 'min_confidence' | 'mark_used' | 'explain'>> = {},
): RecallParams {
  return {
    query,
    project_ids: workspaceProjectIds(),
    top_k: config.recall.topK(),
    min_confidence: config.recall.minConfidence(),
    token_budget: config.recall.tokenBudget(),
    locale: recallLocale(),
    served_to: servedTo,
    ...extra,
  };
}
