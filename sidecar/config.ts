/**
 * The sidecar's configuration: built by the extension from its settings (LSP initializationOptions,
 * protocol.ts {@link InitializationOptions}), or by the CLI from flags and environment variables. What
 * neither gives gets package.json's default (sidecar/shared/settings.ts); a setting keeps its name.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_DECAY, type DecaySettings } from './lifecycle/decay';
import { resolveLlmSettings, type LlmSettings } from './llm/index';
import type { EmbeddingSettingsInput, InitializationOptions } from './protocol';
import { currentUser } from './shared/identity';
import { SETTING_DEFAULTS } from './shared/settings';

/** The resolved embedding settings: the wire input (protocol.ts) with the provider always known. */
export interface EmbeddingSettings extends EmbeddingSettingsInput {
  provider: NonNullable<EmbeddingSettingsInput['provider']>;
}

export interface PipelineSettings {
  /** Cosine distance under which a candidate is a duplicate of a memory of the same project and category. Default 0.15. */
  dedupDistance: number;
  /** Candidates scoring under this (0..10) go to the review queue. Default 4. */
  reviewScoreThreshold: number;
}

/** Episodes: every turn kept as evidence (store/episodeStore.ts). */
export interface EpisodeSettings {
  /** `mnemo.episodes.keep`. Default true. */
  keep: boolean;
  /** `mnemo.episodes.retentionDays`: older turns are deleted; 0 = kept. Default 0. */
  retentionDays: number;
}

/** The ledger of what agents were shown (lifecycle/ledger.ts). */
export interface LedgerSettings {
  /** `mnemo.ledger.retentionDays`: days older than this are deleted (at least 1). Default 90. */
  retentionDays: number;
}

export interface RecallSettings {
  /** Vector channel top-k. Default 3. */
  topK: number;
  /** Only memories with confidence above this are recalled. Default 0.6. */
  minConfidence: number;
  /** Token budget of the injection block. Default 800. */
  tokenBudget: number;
  /** Below this best similarity the rule channel also runs. Default 0.7. */
  weakSimilarity: number;
  /** Vector hits under this cosine similarity are noise and never injected. Default 0.3. */
  minSimilarity: number;
}

/** Scheduled encrypted backups (sidecar/backup/schedule.ts); off unless folder, schedule and password are set. */
export interface BackupSettings {
  /** `mnemo.backup.folder`: folder the backups go to. */
  folder?: string;
  /** `mnemo.backup.schedule`: 'off' (default), 'daily' or 'weekly'. */
  schedule: 'off' | 'daily' | 'weekly';
  /** `mnemo.backup.keep`: how many backups to keep. Default 7. */
  keep: number;
  /** From SecretStorage (the extension) or MNEMO_BACKUP_PASSWORD; never written to disk by Mnemo. */
  password?: string;
}

/** The review queue (review.ts). */
export interface ReviewSettings {
  /** `mnemo.review.archivePendingAfterDays`: pending memories nobody reviewed are archived after this; 0 = never. Default 30. */
  archivePendingAfterDays: number;
}

export interface SidecarConfig {
  /** Scheduled backups. */
  backup: BackupSettings;
  /** Monthly confidence decay (sidecar/lifecycle/decay.ts). */
  decay: DecaySettings;
  review: ReviewSettings;
  /** Where everything lives: chroma/, queue/, audit/, models/, logs/. */
  dataDir: string;
  /** Remote/team Chroma server URL; empty = embedded server. */
  chromaUrl?: string;
  chromaToken?: string;
  /** Run the embedded Chroma on 127.0.0.1 where it cannot be isolated (`mnemo.chroma.allowUnisolated`). */
  chromaAllowUnisolated: boolean;
  embedding: EmbeddingSettings;
  pipeline: PipelineSettings;
  episodes: EpisodeSettings;
  ledger: LedgerSettings;
  recall: RecallSettings;
  /**
   * LLM extraction (sidecar/llm): provider `off` (default: rules only, nothing leaves the machine),
   * `openai-compatible` or `vscode-lm`; preset, base URL, model, key and timeouts. Env MNEMO_LLM_*.
   */
  llm: LlmSettings;
  /** Who changes are attributed to: user@machine. */
  user: string;
}

/** The platform's data folder for the CLI: $XDG_DATA_HOME/mnemo, ~/Library/Application Support/mnemo, %APPDATA%\mnemo. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MNEMO_DATA_DIR) return env.MNEMO_DATA_DIR;
  if (process.platform === 'win32')
    return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'mnemo');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'mnemo');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'mnemo');
}

/** The defaults of package.json (sidecar/shared/settings.ts). */
export const DEFAULT_PIPELINE: PipelineSettings = {
  dedupDistance: SETTING_DEFAULTS['pipeline.dedupDistance'],
  reviewScoreThreshold: SETTING_DEFAULTS['pipeline.reviewScoreThreshold'],
};
export const DEFAULT_EPISODES: EpisodeSettings = {
  keep: SETTING_DEFAULTS['episodes.keep'],
  retentionDays: SETTING_DEFAULTS['episodes.retentionDays'],
};
export const DEFAULT_LEDGER: LedgerSettings = {
  retentionDays: SETTING_DEFAULTS['ledger.retentionDays'],
};
/** The defaults of package.json; weakSimilarity and minSimilarity are not settings (docs/design.md, Recall). */
export const DEFAULT_RECALL: RecallSettings = {
  topK: SETTING_DEFAULTS['recall.topK'],
  minConfidence: SETTING_DEFAULTS['recall.minConfidence'],
  tokenBudget: SETTING_DEFAULTS['recall.tokenBudget'],
  weakSimilarity: 0.7,
  minSimilarity: 0.3,
};

/** The sidecar's input: the protocol's initialization options (the CLI builds the same). */
export type SidecarConfigInput = InitializationOptions;

const SCHEDULES: readonly BackupSettings['schedule'][] = ['off', 'daily', 'weekly'];

/** Merges explicit options over environment variables over defaults. */
export function resolveConfig(
  input: SidecarConfigInput = {},
  env: NodeJS.ProcessEnv = process.env,
): SidecarConfig {
  const emb = input.embedding ?? {};
  const provider = (emb.provider ??
    env.MNEMO_EMBEDDING_PROVIDER ??
    SETTING_DEFAULTS['embedding.provider']) as EmbeddingSettings['provider'];
  const schedule = input.backup?.schedule ?? env.MNEMO_BACKUP_SCHEDULE ?? env.MNEMO_BACKUP_EVERY;
  return {
    dataDir: input.dataDir || defaultDataDir(env),
    chromaUrl: input.chromaUrl || env.MNEMO_CHROMA_URL || undefined,
    chromaToken: input.chromaToken || env.MNEMO_CHROMA_TOKEN || undefined,
    chromaAllowUnisolated:
      input.chromaAllowUnisolated ??
      (env.MNEMO_CHROMA_ALLOW_UNISOLATED
        ? env.MNEMO_CHROMA_ALLOW_UNISOLATED === '1'
        : SETTING_DEFAULTS['chroma.allowUnisolated']),
    embedding: {
      provider,
      model: emb.model || env.MNEMO_EMBEDDING_MODEL || undefined,
      modelPath: emb.modelPath || env.MNEMO_EMBEDDING_MODEL_PATH || undefined,
      remoteHost: emb.remoteHost || env.MNEMO_EMBEDDING_REMOTE_HOST || undefined,
      baseUrl: emb.baseUrl || env.MNEMO_EMBEDDING_BASE_URL || undefined,
      apiKey: emb.apiKey || env.MNEMO_EMBEDDING_API_KEY || env.OPENAI_API_KEY || undefined,
      allowRemote: emb.allowRemote ?? env.MNEMO_EMBEDDING_ALLOW_REMOTE !== '0',
    },
    pipeline: { ...DEFAULT_PIPELINE, ...definedOnly(input.pipeline ?? {}) },
    episodes: {
      ...DEFAULT_EPISODES,
      ...definedOnly(input.episodes ?? {}),
      ...(env.MNEMO_EPISODES === '0' ? { keep: false } : {}),
    },
    ledger: { retentionDays: days(input.ledger?.retentionDays ?? env.MNEMO_LEDGER_RETENTION_DAYS) },
    recall: { ...DEFAULT_RECALL, ...definedOnly(input.recall ?? {}) },
    decay: { ...DEFAULT_DECAY, ...definedOnly(input.decay ?? {}) },
    review: {
      archivePendingAfterDays:
        input.review?.archivePendingAfterDays ?? SETTING_DEFAULTS['review.archivePendingAfterDays'],
    },
    backup: {
      folder: input.backup?.folder || env.MNEMO_BACKUP_FOLDER || undefined,
      schedule: SCHEDULES.includes(schedule as BackupSettings['schedule'])
        ? (schedule as BackupSettings['schedule'])
        : SETTING_DEFAULTS['backup.schedule'],
      keep: input.backup?.keep ?? SETTING_DEFAULTS['backup.keep'],
      password: input.backup?.password || env.MNEMO_BACKUP_PASSWORD || undefined,
    },
    llm: resolveLlmSettings(input.llm, env),
    user: input.user || env.MNEMO_USER || currentUser(env),
  };
}

/** A retention in whole days, at least 1 (anything else: the default). */
function days(v: unknown): number {
  const n = Math.round(Number(v));
  return v !== undefined && v !== '' && Number.isFinite(n) && n >= 1 ? n : DEFAULT_LEDGER.retentionDays;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
