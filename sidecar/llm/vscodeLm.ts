/**
 * VS Code's language models (e.g. Copilot) as an extraction model. The sidecar has no `vscode`
 * import: it asks the extension to run the prompt through vscode.lm with {@link LlmCompleteRequest}
 * (stdio.ts binds {@link VsCodeLmCall} to `conn.sendRequest`). vscode.lm reports no token usage, so
 * usage is estimated and marked `estimated`.
 */
import { errorMessage } from '../shared/errors';
import type { LlmCompleteParams, LlmCompleteResult } from '../protocol';
import { seconds } from './openai';
import {
  LlmUnavailableError,
  type LlmCompleteOptions,
  type LlmCompletion,
  type LlmMessage,
  type LlmProvider,
} from './types';

/** Runs one prompt in the extension; `signal` aborts it (bind it to a CancellationToken). */
export type VsCodeLmCall = (params: LlmCompleteParams, signal: AbortSignal) => Promise<LlmCompleteResult>;

export interface VsCodeLmOptions {
  call: VsCodeLmCall;
  /** Model family or id hint (`mnemo.llm.model`); empty: any chat model. */
  model?: string;
  /** Whole-call timeout in ms (the user may have to grant access the first time). Default 60000. */
  timeoutMs?: number;
}

export const VSCODE_LM_DEFAULT_TIMEOUT_MS = 60_000;

export class VsCodeLmProvider implements LlmProvider {
  readonly id: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: VsCodeLmOptions) {
    this.timeoutMs = opts.timeoutMs ?? VSCODE_LM_DEFAULT_TIMEOUT_MS;
    this.id = `vscode-lm${opts.model ? `:${opts.model}` : ''}`;
  }

  async complete(messages: LlmMessage[], opts: LlmCompleteOptions): Promise<LlmCompletion> {
    if (opts.signal?.aborted) throw new LlmUnavailableError('aborted', 'The LLM call was cancelled.');
    const ac = new AbortController();
    const params: LlmCompleteParams = { messages, max_tokens: opts.max_tokens };
    if (this.opts.model) params.model = this.opts.model;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const guard = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        // Settle first, then abort: the call's own "cancelled" rejection must not win the race.
        reject(
          new LlmUnavailableError(
            'read-timeout',
            `The LLM is unavailable: VS Code's language model did not answer within ${seconds(this.timeoutMs)}; check that a chat model such as Copilot is signed in and allowed for Mnemo.`,
          ),
        );
        ac.abort();
      }, this.timeoutMs);
      onAbort = () => {
        reject(new LlmUnavailableError('aborted', 'The LLM call was cancelled.'));
        ac.abort();
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const result = await Promise.race([this.opts.call(params, ac.signal), guard]);
      if (!result || typeof result.text !== 'string') {
        throw new LlmUnavailableError(
          'bad-answer',
          "The LLM is unavailable: VS Code's language model returned no text.",
        );
      }
      const prompt = messages.reduce((n, m) => n + estimateTokens(m.content), 0);
      return {
        text: result.text,
        model: result.model,
        usage: { prompt_tokens: prompt, completion_tokens: estimateTokens(result.text), estimated: true },
      };
    } catch (err) {
      if (err instanceof LlmUnavailableError) throw err;
      // The extension answers LlmUnavailable (no model, no consent, quota) with a sentence of its own.
      const msg = errorMessage(err).replace(/[.。]\s*$/, '');
      throw new LlmUnavailableError(
        'http',
        `The LLM is unavailable: VS Code's language model failed (${msg}).`,
        { cause: err },
      );
    } finally {
      clearTimeout(timer);
      if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * Rough token count when the model reports none: a CJK character is about one token, other text
 * about four characters per token. Good enough for a usage counter, not for billing.
 */
export function estimateTokens(text: string): number {
  let cjk = 0;
  for (const ch of text) if (/[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/u.test(ch)) cjk++;
  const rest = [...text].length - cjk;
  return cjk + Math.ceil(rest / 4);
}
