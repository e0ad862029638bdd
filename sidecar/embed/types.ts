/** An embedding provider turns texts into L2-normalized vectors of a fixed dimension. */
import { EmbeddingError } from '../shared/errors';

export interface EmbeddingProvider {
  /** Stable model id, e.g. `local:Xenova/all-MiniLM-L6-v2`; collections are keyed by it and the dimension. */
  readonly modelId: string;
  /** Vector dimension; known after {@link ready} resolves. */
  dimension(): number;
  /** Loads (or downloads) the model; rejects with an {@link EmbeddingUnavailableError} saying why in one sentence. */
  ready(): Promise<void>;
  /** Embeds a batch; vectors are L2-normalized, in the order of `texts`. */
  embed(texts: string[], opts?: EmbedOptions): Promise<number[][]>;
  dispose(): Promise<void>;
}

export interface EmbedOptions {
  /**
   * Part of a bulk job (an import, a restore, a re-embedding), not a question someone waits for: the local
   * provider may use more threads for it and answers questions first. Default: whether the call holds
   * more than {@link BULK_MIN_TEXTS} texts.
   */
  bulk?: boolean;
}

/** A call with more texts than this is a bulk job unless it says otherwise ({@link EmbedOptions.bulk}). */
export const BULK_MIN_TEXTS = 64;

export interface EmbeddingProgress {
  /** e.g. "Downloading model.onnx" */
  message: string;
  /** 0..100 when known */
  percent?: number;
}

/**
 * A provider cannot embed (model missing, server down, worker crashed): one sentence saying why and what
 * to do. Part of the one embedding error family: it is an {@link EmbeddingError} (JSON-RPC code
 * EmbeddingUnavailable), so the capture worker keeps a capture queued instead of counting a failure.
 */
export class EmbeddingUnavailableError extends EmbeddingError {
  override name = 'EmbeddingUnavailableError';
}
