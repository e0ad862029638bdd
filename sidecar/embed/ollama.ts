/** Embeddings from a running Ollama server (`POST /api/embed`). */
import { HttpEmbeddingProvider, HttpStatusError, postJson, toNormalizedVectors } from './http';
import { EmbeddingUnavailableError, type EmbeddingProvider } from './types';

export interface OllamaEmbeddingOptions {
  /** Ollama model name. Default `bge-m3` (multilingual, 1024 dimensions; `ollama pull bge-m3`). */
  model?: string;
  /** Server base URL. Default `$OLLAMA_HOST` if set, else `http://127.0.0.1:11434`. */
  baseUrl?: string;
  /** Per-request timeout in ms. Default 30000 (the first request may load the model). */
  timeoutMs?: number;
  /** Texts per request. Default 32. */
  batchSize?: number;
}

export const OLLAMA_DEFAULTS = {
  model: 'bge-m3',
  baseUrl: 'http://127.0.0.1:11434',
  timeoutMs: 30_000,
  batchSize: 32,
} as const;

export class OllamaEmbeddingProvider extends HttpEmbeddingProvider implements EmbeddingProvider {
  readonly modelId: string;
  private readonly url: string;

  constructor(opts: OllamaEmbeddingOptions = {}) {
    super(opts, OLLAMA_DEFAULTS);
    const base = opts.baseUrl ?? ollamaHostFromEnv() ?? OLLAMA_DEFAULTS.baseUrl;
    this.url = `${base.replace(/\/+$/, '')}/api/embed`;
    this.modelId = `ollama:${this.model}`;
  }

  protected async request(input: string[]): Promise<number[][]> {
    let answer: unknown;
    try {
      answer = await postJson(
        this.url,
        { model: this.model, input, truncate: true },
        {
          service: 'Ollama',
          timeoutMs: this.timeoutMs,
          hint: 'check that Ollama is running and mnemo.embedding.baseUrl',
        },
      );
    } catch (err) {
      if (err instanceof HttpStatusError && /not found|pull/i.test(err.detail)) {
        throw new EmbeddingUnavailableError(
          `Ollama has no model "${this.model}"; run "ollama pull ${this.model}" or change mnemo.embedding.model.`,
          { cause: err },
        );
      }
      throw err;
    }
    const vectors = toNormalizedVectors(
      (answer as { embeddings?: unknown } | null)?.embeddings,
      input.length,
      'Ollama',
    );
    return this.sameDimension(vectors, `Ollama model "${this.model}"`);
  }
}

/** `OLLAMA_HOST` may be `host:port` without a scheme. */
function ollamaHostFromEnv(): string | undefined {
  const h = process.env['OLLAMA_HOST']?.trim();
  if (!h) return undefined;
  return /^https?:\/\//.test(h) ? h : `http://${h}`;
}
