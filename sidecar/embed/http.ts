/**
 * JSON-over-HTTP for the remote embedding providers (Ollama, OpenAI-compatible): one POST with a
 * timeout, and failures turned into one-sentence {@link EmbeddingUnavailableError}s.
 */
import { EmbeddingUnavailableError } from './types';
import { inBatches, l2normalize } from './vectors';
import { cutText } from '../shared/text';

export interface PostJsonOptions {
  /** What is being called, for messages, e.g. `Ollama` or `the OpenAI-compatible server`. */
  service: string;
  /** Whole-request timeout in milliseconds. */
  timeoutMs: number;
  headers?: Record<string, string>;
  /** Suffix for error messages telling the user what to change, e.g. `check mnemo.embedding.baseUrl`. */
  hint: string;
}

/** POSTs `body` as JSON to `url` and returns the parsed JSON answer; throws EmbeddingUnavailableError. */
export async function postJson(url: string, body: unknown, opts: PostJsonOptions): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...opts.headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (err) {
    if (isTimeout(err)) {
      throw new EmbeddingUnavailableError(
        `${opts.service} did not answer within ${opts.timeoutMs} ms at ${url}; ${opts.hint} or raise mnemo.embedding.timeoutMs.`,
        { cause: err },
      );
    }
    throw new EmbeddingUnavailableError(
      `Could not reach ${opts.service} at ${url} (${networkReason(err)}); ${opts.hint}.`,
      { cause: err },
    );
  }

  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    const reason = isTimeout(err) ? `no complete answer within ${opts.timeoutMs} ms` : networkReason(err);
    throw new EmbeddingUnavailableError(
      `${opts.service} at ${url} broke off its answer (${reason}); ${opts.hint}.`,
      {
        cause: err,
      },
    );
  }

  if (!res.ok) {
    const detail = errorDetail(text);
    throw new HttpStatusError(
      `${opts.service} answered HTTP ${res.status}${detail ? ` (${detail})` : ''} at ${url}; ${opts.hint}.`,
      res.status,
      detail,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new EmbeddingUnavailableError(
      `${opts.service} at ${url} answered with something that is not JSON; ${opts.hint}.`,
      {
        cause: err,
      },
    );
  }
}

/** An HTTP error answer; `detail` is the server's own error text, if it gave one. */
export class HttpStatusError extends EmbeddingUnavailableError {
  constructor(
    message: string,
    readonly status: number,
    readonly detail: string,
  ) {
    super(message);
  }
}

/**
 * Checks that `value` is a non-empty array of `expected` equal-length numeric vectors and returns
 * them L2-normalized.
 */
export function toNormalizedVectors(value: unknown, expected: number, service: string): number[][] {
  if (!Array.isArray(value) || value.length !== expected) {
    const got = Array.isArray(value) ? `${value.length} vectors` : 'no vectors';
    throw new EmbeddingUnavailableError(
      `${service} returned ${got} for ${expected} texts; is the model an embedding model?`,
    );
  }
  let dim = -1;
  return value.map((v: unknown) => {
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingUnavailableError(
        `${service} returned a vector that is not a list of numbers; is the model an embedding model?`,
      );
    }
    if (dim === -1) dim = v.length;
    if (v.length !== dim) {
      throw new EmbeddingUnavailableError(
        `${service} returned vectors of different lengths (${dim} and ${v.length}).`,
      );
    }
    return l2normalize(v as number[]);
  });
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

/** The most specific reason of a fetch failure, e.g. `ECONNREFUSED` or `ENOTFOUND`. */
export function networkReason(err: unknown): string {
  let cur: unknown = err;
  for (let i = 0; i < 4 && cur instanceof Error; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = cur.cause;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The server's own error text from an error body: `{error: "..."}`, `{error: {message}}` or plain text. */
function errorDetail(text: string): string {
  let detail = text.trim();
  try {
    const j = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof j.error === 'string') detail = j.error;
    else if (
      j.error &&
      typeof j.error === 'object' &&
      typeof (j.error as { message?: unknown }).message === 'string'
    ) {
      detail = (j.error as { message: string }).message;
    } else if (typeof j.message === 'string') detail = j.message;
  } catch {
    // not JSON: keep the text
  }
  detail = detail.replace(/\s+/g, ' ');
  return detail.length > 200 ? `${cutText(detail, 197)}...` : detail;
}

/** The settings every HTTP provider takes; each one not given is the provider's default. */
export interface HttpProviderSettings {
  model: string;
  timeoutMs: number;
  batchSize: number;
}

/**
 * What the HTTP providers share: the model, timeout and batch size with their defaults, the dimension
 * learned from one probe request (retried after a failure, e.g. once the server was started) and kept
 * (an answer of another dimension is refused), texts sent in batches, and nothing to release.
 */
export abstract class HttpEmbeddingProvider {
  abstract readonly modelId: string;
  protected readonly model: string;
  protected readonly timeoutMs: number;
  protected readonly batchSize: number;
  protected dim = 0;
  private readying: Promise<void> | undefined;

  constructor(opts: Partial<HttpProviderSettings>, defaults: HttpProviderSettings) {
    this.model = opts.model ?? defaults.model;
    this.timeoutMs = opts.timeoutMs ?? defaults.timeoutMs;
    this.batchSize = opts.batchSize ?? defaults.batchSize;
  }

  /** One request: the vectors of `input`, L2-normalized, in order. */
  protected abstract request(input: string[]): Promise<number[][]>;

  dimension(): number {
    if (!this.dim) throw new Error(`dimension() of ${this.modelId} is unknown until ready() resolves`);
    return this.dim;
  }

  ready(): Promise<void> {
    this.readying ??= this.request(['dimension probe']).then(
      (v) => {
        this.dim = v[0]!.length;
      },
      (err: unknown) => {
        this.readying = undefined; // a later call retries (the server may have come up meanwhile)
        throw err;
      },
    );
    return this.readying;
  }

  /** The vectors of an answer, refused when the model's dimension changed since the probe (`model`: its name in the sentence). */
  protected sameDimension(vectors: number[][], model: string): number[][] {
    if (this.dim && vectors[0]!.length !== this.dim) {
      throw new EmbeddingUnavailableError(
        `${model} changed dimension from ${this.dim} to ${vectors[0]!.length}; restart the sidecar.`,
      );
    }
    return vectors;
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    await this.ready();
    return inBatches(texts, this.batchSize, (batch) => this.request(batch));
  }

  async dispose(): Promise<void> {
    // Stateless HTTP: nothing to release.
  }
}
