/**
 * Embedding providers and the one factory the sidecar uses. Settings map 1:1 onto
 * {@link EmbeddingConfig} (`mnemo.embedding.<key>`); see docs/embeddings.md for the choice of default.
 */
import { LocalEmbeddingProvider, type OnnxDtype } from './local';
import { OllamaEmbeddingProvider } from './ollama';
import { OpenAIEmbeddingProvider } from './openai';
import { EmbeddingUnavailableError, type EmbeddingProgress, type EmbeddingProvider } from './types';

export { EmbeddingUnavailableError } from './types';
export { BULK_MIN_TEXTS } from './types';
export type { EmbedOptions, EmbeddingProgress, EmbeddingProvider } from './types';
export {
  DEFAULT_LOCAL_MODEL,
  ENGLISH_LOCAL_MODEL,
  LOCAL_DEFAULTS,
  LocalEmbeddingProvider,
  defaultCacheDir,
  resolveEmbedWorkerPath,
  type LocalEmbeddingOptions,
  type OnnxDtype,
} from './local';
export { OLLAMA_DEFAULTS, OllamaEmbeddingProvider, type OllamaEmbeddingOptions } from './ollama';
export { OPENAI_DEFAULTS, OpenAIEmbeddingProvider, type OpenAIEmbeddingOptions } from './openai';
export { cosineDistance, cosineSimilarity, l2normalize } from './vectors';

export type EmbeddingProviderKind = 'local' | 'ollama' | 'openai';

/** Flat embedding configuration; each key is the setting `mnemo.embedding.<key>`. */
export interface EmbeddingConfig {
  /** Which provider computes vectors. Default `local`. */
  provider?: EmbeddingProviderKind;
  /**
   * Model id. Default per provider: local `Xenova/paraphrase-multilingual-MiniLM-L12-v2`,
   * ollama `bge-m3`, openai `text-embedding-3-small`.
   */
  model?: string;
  /** Texts per request / inference call. Default: local 4 (a bulk job: 32), ollama 32, openai 64. */
  batchSize?: number;

  /** local: model folder or models root; nothing is downloaded when set. Default `$MNEMO_EMBEDDING_MODEL_PATH`. */
  modelPath?: string;
  /** local: download cache (the extension's global storage). Default `~/.cache/mnemo/models`. */
  cacheDir?: string;
  /** local: hub or mirror base URL, e.g. `https://hf-mirror.com`. Default `https://huggingface.co/`. */
  remoteHost?: string;
  /** local: whether the model may be downloaded on first use. Default true. */
  allowRemote?: boolean;
  /** local: ONNX weights variant. Default `q8` for downloads; what the folder has for modelPath. */
  dtype?: OnnxDtype;
  /** local: ONNX Runtime threads. Default half the logical CPUs. */
  threads?: number;
  /** local: download/load progress. */
  onProgress?: (p: EmbeddingProgress) => void;
  /** local: the worker's console output, line by line. Default stderr. */
  log?: (line: string) => void;

  /** ollama/openai: server base URL. Default ollama `http://127.0.0.1:11434`, openai `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** openai: API key. Default `$MNEMO_EMBEDDING_API_KEY`, else `$OPENAI_API_KEY`. */
  apiKey?: string;
  /** openai: requested vector size (text-embedding-3-*). Default: the model's own. */
  dimensions?: number;
  /** ollama/openai: per-request timeout in ms (local: download stall timeout). Default 30000. */
  timeoutMs?: number;
}

/** Builds the configured provider; nothing is loaded or contacted until `ready()` or `embed()`. */
export function createEmbeddingProvider(cfg: EmbeddingConfig = {}): EmbeddingProvider {
  const provider = cfg.provider ?? 'local';
  switch (provider) {
    case 'local':
      return new LocalEmbeddingProvider({
        ...defined({
          model: cfg.model,
          dtype: cfg.dtype,
          modelPath: cfg.modelPath,
          cacheDir: cfg.cacheDir,
          remoteHost: cfg.remoteHost,
          allowRemote: cfg.allowRemote,
          batchSize: cfg.batchSize,
          threads: cfg.threads,
          stallTimeoutMs: cfg.timeoutMs,
          onProgress: cfg.onProgress,
          log: cfg.log,
        }),
      });
    case 'ollama':
      return new OllamaEmbeddingProvider(
        defined({
          model: cfg.model,
          baseUrl: cfg.baseUrl,
          timeoutMs: cfg.timeoutMs,
          batchSize: cfg.batchSize,
        }),
      );
    case 'openai':
      return new OpenAIEmbeddingProvider(
        defined({
          model: cfg.model,
          baseUrl: cfg.baseUrl,
          apiKey: cfg.apiKey,
          dimensions: cfg.dimensions,
          timeoutMs: cfg.timeoutMs,
          batchSize: cfg.batchSize,
        }),
      );
    default:
      throw new EmbeddingUnavailableError(
        `Unknown embedding provider "${String(provider)}"; set mnemo.embedding.provider to local, ollama or openai.`,
      );
  }
}

/** Drops undefined values (exactOptionalPropertyTypes-friendly spreading). */
function defined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
