/**
 * What the extraction stage needs from a language model: one chat completion. Providers live next to
 * this file (openai.ts: any OpenAI-compatible endpoint; vscodeLm.ts: VS Code's models through the
 * extension); index.ts picks one from the `mnemo.llm.*` settings.
 */
import { typedError } from '../shared/errors';
import { ErrorCodes } from '../protocol';

/** One chat message sent to the model. */
export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Options of one completion. */
export interface LlmCompleteOptions {
  /** Sampling temperature; extraction uses 0.1 (docs/design.md, Extraction with an LLM: stable, parseable output). */
  temperature: number;
  /** Upper bound of the answer's length in tokens; extraction uses 800. */
  max_tokens: number;
  /** Aborts the call (the provider rejects with an LlmUnavailableError of reason `aborted`). */
  signal?: AbortSignal;
}

/** Tokens spent by one completion. */
export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** true when the provider reported no usage and these are estimates (vscode-lm). */
  estimated?: boolean;
}

export interface LlmCompletion {
  /** The assistant message's text. */
  text: string;
  /** As reported by the server; absent when it reported none. */
  usage?: LlmUsage;
  /** The model that answered, when the server says. */
  model?: string;
}

/** A language model that completes a chat. Implementations never leak API keys into errors. */
export interface LlmProvider {
  /** Human-readable identity for logs and messages, e.g. `openai-compatible:glm-4-flash@open.bigmodel.cn`. */
  readonly id: string;
  /** @throws LlmUnavailableError with a one-sentence message when the model cannot answer. */
  complete(messages: LlmMessage[], opts: LlmCompleteOptions): Promise<LlmCompletion>;
  /** Releases sockets. Optional; safe to call twice. */
  dispose?(): void;
}

/** Why the LLM could not answer; lets callers and tests tell failures apart without parsing messages. */
export type LlmFailure =
  | 'not-configured'
  | 'no-api-key'
  | 'connect-refused'
  | 'connect-timeout'
  | 'dns'
  | 'network'
  | 'read-timeout'
  | 'rate-limited'
  | 'server-error'
  | 'auth'
  | 'http'
  | 'bad-answer'
  | 'circuit-open'
  | 'aborted';

/** The LLM is unavailable (JSON-RPC code LlmUnavailable); the message is one sentence saying why. */
export class LlmUnavailableError extends typedError('LlmUnavailableError', ErrorCodes.LlmUnavailable) {
  constructor(
    readonly reason: LlmFailure,
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    this.status = options?.status;
  }
  /** HTTP status when the server answered with one. */
  readonly status: number | undefined;
}
