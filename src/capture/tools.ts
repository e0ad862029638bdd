/**
 * Language Model tools (feature-detected `vscode.lm.registerTool`), declared in package.json
 * `languageModelTools`: `mnemo_recall` {query, top_k} returns the injection block; `mnemo_remember`
 * {text, category} stores a fact an agent learned (pending review: an agent is not a person vouching).
 */
import * as vscode from 'vscode';
import { isCategory, type Category } from '../../sidecar/model';
import { RecallRequest, RememberRequest } from '../../sidecar/protocol';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { describeError, errorDetail } from '../errors';
import { projectIdForUri } from '../projects';
import { CATEGORY_LABEL, shortText, type RememberedWords } from '../shared/memoryText';
import { recallParams } from '../recallParams';

export const RECALL_TOOL = 'mnemo_recall';
export const REMEMBER_TOOL = 'mnemo_remember';

/** What `mnemo_remember` tells the agent it did. */
const REMEMBERED: RememberedWords = {
  stored: 'Remembered',
  refreshed: 'Already known; refreshed',
  pending: 'Remembered for the user to review',
};

export interface RecallToolInput {
  query: string;
  top_k?: number;
}
export interface RememberToolInput {
  text: string;
  category?: Category;
}

function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

export class LanguageModelTools implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** Names registered (empty when this VS Code has no tool API). */
  readonly registered: string[] = [];

  constructor(private readonly ctx: Ctx) {
    const lm = (vscode as Partial<typeof vscode>).lm;
    if (typeof lm?.registerTool !== 'function') {
      ctx.log.info('Mnemo language model tools are unavailable: this VS Code has no vscode.lm.registerTool.');
      return;
    }
    this.disposables.push(
      lm.registerTool<RecallToolInput>(RECALL_TOOL, {
        prepareInvocation: (options) => ({
          invocationMessage: `Recalling memories about “${shortText(options.input.query ?? '', 60)}”`,
        }),
        invoke: (options, token) =>
          this.recall(options.input, token, options.toolInvocationToken !== undefined),
      }),
      lm.registerTool<RememberToolInput>(REMEMBER_TOOL, {
        prepareInvocation: (options) => ({
          invocationMessage: `Remembering “${shortText(options.input.text ?? '', 60)}” for review`,
        }),
        invoke: (options) => this.remember(options.input),
      }),
    );
    this.registered.push(RECALL_TOOL, REMEMBER_TOOL);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** `inChat`: VS Code says the call comes from a chat request (agent mode, a participant), not an extension. */
  private async recall(
    input: RecallToolInput,
    token: vscode.CancellationToken,
    inChat: boolean,
  ): Promise<vscode.LanguageModelToolResult> {
    const query = typeof input?.query === 'string' ? input.query.trim() : '';
    if (!query) return text('mnemo_recall needs a non-empty "query".');
    const topK =
      typeof input.top_k === 'number' && input.top_k > 0
        ? Math.min(20, Math.round(input.top_k))
        : config.recall.topK();
    try {
      const result = await this.ctx.request(
        RecallRequest,
        recallParams(
          query,
          {
            surface: 'lm-tool',
            name: inChat ? 'VS Code chat' : 'VS Code extension',
            version: vscode.version,
            tool: RECALL_TOOL,
          },
          { top_k: topK },
        ),
        token,
      );
      if (result.items.length === 0) return text(`No memories recalled for "${query}".`);
      return text(result.block);
    } catch (err) {
      this.ctx.log.error(`${RECALL_TOOL} failed: ${errorDetail(err)}`);
      // Tools report failure as text the model can act on, rather than failing the chat turn.
      return text(`Mnemo could not recall memories: ${describeError(err)}`);
    }
  }

  private async remember(input: RememberToolInput): Promise<vscode.LanguageModelToolResult> {
    const value = typeof input?.text === 'string' ? input.text.trim() : '';
    if (!value) return text('mnemo_remember needs a non-empty "text".');
    const category = isCategory(input.category) ? input.category : undefined;
    try {
      const decision = await this.ctx.request(RememberRequest, {
        text: value,
        project_id: projectIdForUri(vscode.window.activeTextEditor?.document.uri),
        category,
        source_type: 'chat',
        source_ref: [`tool:${REMEMBER_TOOL}`],
        added_by: 'agent',
        pending: true,
      });
      if (decision.outcome === 'dropped') return text(`Not remembered: ${decision.reason}.`);
      const cat = decision.category ? ` as ${CATEGORY_LABEL[decision.category]}` : '';
      return text(
        `${REMEMBERED[decision.outcome]}${cat} (id ${decision.id ?? 'n/a'}${decision.score !== undefined ? `, score ${decision.score.toFixed(1)}` : ''}).`,
      );
    } catch (err) {
      this.ctx.log.error(`${REMEMBER_TOOL} failed: ${errorDetail(err)}`);
      return text(`Mnemo could not remember it: ${describeError(err)}`);
    }
  }
}
