/** Messages between {@link LocalEmbeddingProvider} (local.ts) and its worker thread (localWorker.ts). */

/** ONNX weight variants transformers.js knows; `q8` is `onnx/model_quantized.onnx`, `fp32` is `onnx/model.onnx`. */
export type OnnxDtype = 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'q4f16' | 'bnb4';

/** File suffix of each dtype under `onnx/` (transformers.js `DEFAULT_DTYPE_SUFFIX_MAPPING`). */
export const DTYPE_SUFFIX: Readonly<Record<OnnxDtype, string>> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};

/** First message to the worker: the resolved options, all plain data. */
export interface WorkerInit {
  /** Hub id, e.g. `Xenova/paraphrase-multilingual-MiniLM-L12-v2`. */
  model: string;
  /** Explicit dtype, or undefined to pick what a local folder has (q8 first) and q8 for downloads. */
  dtype: OnnxDtype | undefined;
  /** A model folder itself, or a root that holds `<model>/`; undefined when not configured. */
  modelPath: string | undefined;
  cacheDir: string;
  /** Ends with `/`. */
  remoteHost: string;
  allowRemote: boolean;
  /** ONNX Runtime intra-op threads; undefined lets ONNX Runtime decide. */
  threads: number | undefined;
  /** Abort a download when the server sends nothing for this long (headers or body), in ms. */
  stallTimeoutMs: number;
  /** The worker process's nice value, set before the model's threads start; undefined for a thread. */
  niceness: number | undefined;
}

export type ToWorker =
  /** Always the first message. */
  | { type: 'init'; init: WorkerInit }
  /** One inference call. `bulk`: part of an import or a re-embedding; every waiting request without it runs first. */
  | { type: 'embed'; id: number; texts: string[]; bulk?: boolean }
  | { type: 'stats'; id: number };

export type FromWorker =
  | { type: 'progress'; message: string; percent?: number }
  | {
      type: 'ready';
      dimension: number;
      /** Where the weights came from. */
      source: 'modelPath' | 'cache' | 'download';
      /** The folder that was loaded. */
      dir: string;
      dtype: OnnxDtype;
    }
  | { type: 'result'; id: number; dim: number; data: Float32Array }
  /** Memory of the process the worker runs in (for a thread: the whole sidecar). */
  | { type: 'stats'; id: number; rss: number; pid: number }
  /** `id` is absent for a failure to load; the message is one sentence for a person. */
  | { type: 'error'; id?: number; message: string; detail?: string };
