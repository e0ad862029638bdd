/** An embedding provider turns texts into L2-normalized vectors of a fixed dimension. */
import { EmbeddingError } from '../errors';

export interface EmbeddingProvider {
  /** Stable model id, e.g. `local:Xenova/all-MiniLM-L6-v2`; collections are keyed by it and the dimension. */
  readonly modelId: string;
  /** Vector dimension; known after {@link ready} resolves. */
  dimension(): number;
  /** Loads (or downloads) the model; rejects with an {@link EmbeddingUnavailableError} saying why in one sentence. */
  ready(): Promise<void>;
  /** Embeds a batch; vectors are L2-normalized. */
  embed(texts: string[]): Promise<number[][]>;
  dispose(): Promise<void>;
}

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
