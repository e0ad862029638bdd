/** Embeddings from any OpenAI-compatible server (`POST {baseUrl}/embeddings`). */
import { HttpEmbeddingProvider, HttpStatusError, postJson, toNormalizedVectors } from './http';
import { EmbeddingUnavailableError, type EmbeddingProvider } from './types';

export interface OpenAIEmbeddingOptions {
  /** Model name. Default `text-embedding-3-small`. */
  model?: string;
  /** Base URL including the version path. Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /**
   * API key, sent as `Authorization: Bearer`. Default `$MNEMO_EMBEDDING_API_KEY`, else
   * `$OPENAI_API_KEY`. Required for api.openai.com; optional for local servers.
   */
  apiKey?: string;
  /** Ask the server for shorter vectors (text-embedding-3-*). Default: the model's own size. */
  dimensions?: number;
  /** Per-request timeout in ms. Default 30000. */
  timeoutMs?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
}

export const OPENAI_DEFAULTS = {
  model: 'text-embedding-3-small',
  baseUrl: 'https://api.openai.com/v1',
  timeoutMs: 30_000,
  batchSize: 64,
} as const;

export class OpenAIEmbeddingProvider extends HttpEmbeddingProvider implements EmbeddingProvider {
  readonly modelId: string;
  private readonly url: string;
  private readonly apiKey: string | undefined;
  private readonly dimensions: number | undefined;
  private readonly requiresKey: boolean;

  constructor(opts: OpenAIEmbeddingOptions = {}) {
    super(opts, OPENAI_DEFAULTS);
    const base = (opts.baseUrl ?? OPENAI_DEFAULTS.baseUrl).replace(/\/+$/, '');
    this.url = `${base}/embeddings`;
    this.apiKey =
      opts.apiKey || process.env['MNEMO_EMBEDDING_API_KEY'] || process.env['OPENAI_API_KEY'] || undefined;
    this.dimensions = opts.dimensions;
    this.requiresKey = /(^|\.)openai\.com$/i.test(safeHost(base));
    this.modelId = `openai:${this.model}${this.dimensions ? `:${this.dimensions}` : ''}`;
  }

  override ready(): Promise<void> {
    if (this.requiresKey && !this.apiKey) {
      return Promise.reject(
        new EmbeddingUnavailableError(
          `No API key for ${this.url}; set mnemo.embedding.apiKey or the OPENAI_API_KEY environment variable.`,
        ),
      );
    }
    return super.ready();
  }

  protected async request(input: string[]): Promise<number[][]> {
    const headers: Record<string, string> = {};
    if (this.apiKey) headers['authorization'] = `Bearer ${this.apiKey}`;
    const body: Record<string, unknown> = { model: this.model, input, encoding_format: 'float' };
    if (this.dimensions) body['dimensions'] = this.dimensions;
    let answer: unknown;
    try {
      answer = await postJson(this.url, body, {
        service: 'the embeddings server',
        timeoutMs: this.timeoutMs,
        headers,
        hint: 'check mnemo.embedding.baseUrl and mnemo.embedding.model',
      });
    } catch (err) {
      if (err instanceof HttpStatusError && (err.status === 401 || err.status === 403)) {
        throw new EmbeddingUnavailableError(
          `The embeddings server at ${this.url} refused the API key (HTTP ${err.status}); check mnemo.embedding.apiKey.`,
          { cause: err },
        );
      }
      throw err;
    }
    const data = (answer as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) {
      throw new EmbeddingUnavailableError(
        `The embeddings server at ${this.url} answered without a "data" list; is it OpenAI-compatible?`,
      );
    }
    // Answers carry an index; order by it rather than trusting the array order.
    const ordered = [...(data as { index?: unknown; embedding?: unknown }[])]
      .sort((a, b) => (typeof a.index === 'number' && typeof b.index === 'number' ? a.index - b.index : 0))
      .map((d) => d.embedding);
    const vectors = toNormalizedVectors(ordered, input.length, 'The embeddings server');
    return this.sameDimension(vectors, `Model "${this.model}"`);
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
