/**
 * Typed getters over `contributes.configuration` (package.json is the single source of truth for
 * defaults; the fallbacks, from sidecar/shared/settings.ts, only matter when the manifest is missing a
 * key, and test/unit/settings.test.ts keeps them equal). Settings are flat `mnemo.<section>.<key>`, and
 * the keys are typed: a mistyped one does not compile. Nothing else in src/ calls
 * `getConfiguration('mnemo')` directly.
 */
import * as vscode from 'vscode';
import type { EmbeddingSettingsInput, LlmSettingsInput } from '../sidecar/protocol';
import { LLM_PRESETS, isLlmPreset, type LlmPresetName } from '../sidecar/shared/llmPresets';
import {
  SETTING_DEFAULTS,
  type BooleanSettingKey,
  type NumberSettingKey,
  type SettingKey,
  type StringSettingKey,
} from '../sidecar/shared/settings';

function cfg(scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('mnemo', scope);
}

function num(key: NumberSettingKey, min = -Infinity, max = Infinity): number {
  const v = cfg().get<number>(key);
  if (typeof v !== 'number' || !Number.isFinite(v)) return SETTING_DEFAULTS[key];
  return Math.min(max, Math.max(min, v));
}

function str(key: StringSettingKey): string {
  const v = cfg().get<string>(key);
  return typeof v === 'string' ? v.trim() : SETTING_DEFAULTS[key];
}

function bool(key: BooleanSettingKey): boolean {
  const v = cfg().get<boolean>(key);
  return typeof v === 'boolean' ? v : SETTING_DEFAULTS[key];
}

/** One of the values a setting allows, else its default. */
function oneOf<T extends string>(key: StringSettingKey, allowed: readonly T[]): T {
  const v = str(key);
  return (allowed as readonly string[]).includes(v) ? (v as T) : (SETTING_DEFAULTS[key] as T);
}

export type LlmProvider = LlmSettingsInput['provider'];
export type LlmPreset = LlmPresetName;
export type EmbeddingProvider = NonNullable<EmbeddingSettingsInput['provider']>;
export type { SettingKey };

/** OpenAI-compatible endpoints behind `mnemo.llm.preset` (sidecar/shared/llmPresets.ts); used when baseUrl/model are left empty. */
export { LLM_PRESETS };

export const DEFAULT_TERMINAL_EXCLUDES: readonly string[] =
  SETTING_DEFAULTS['capture.terminal.excludePatterns'];

export const config = {
  capture: {
    terminal: {
      enabled: (): boolean => bool('capture.terminal.enabled'),
      /** Regexes (a leading `(?i)` makes one case-insensitive); invalid ones are skipped and logged. */
      excludePatterns: (): string[] => {
        const v = cfg().get<unknown>('capture.terminal.excludePatterns');
        return Array.isArray(v)
          ? v.filter((x): x is string => typeof x === 'string')
          : [...DEFAULT_TERMINAL_EXCLUDES];
      },
      idleGapSeconds: (): number => num('capture.terminal.idleGapSeconds', 5, 86_400),
      maxOutputBytes: (): number => num('capture.terminal.maxOutputBytes', 256, 1_048_576),
    },
    chat: {
      enabled: (): boolean => bool('capture.chat.enabled'),
    },
    /** `mnemo.capture.sources`: the person's answer per agent (setting keys: claudeCode…); absent = never asked. */
    sources: (): Record<string, boolean> => {
      const v = cfg().get<unknown>('capture.sources');
      if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
      return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'boolean')) as Record<
        string,
        boolean
      >;
    },
    /** `mnemo.capture.excludeGlobs`: working folders whose agent sessions are never read. */
    excludeGlobs: (): string[] => {
      const v = cfg().get<unknown>('capture.excludeGlobs');
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
    },
  },
  episodes: {
    keep: (): boolean => bool('episodes.keep'),
    retentionDays: (): number => Math.round(num('episodes.retentionDays', 0, 36_500)),
  },
  ledger: {
    retentionDays: (): number => Math.round(num('ledger.retentionDays', 1, 3650)),
  },
  pipeline: {
    dedupDistance: (): number => num('pipeline.dedupDistance', 0, 2),
    reviewScoreThreshold: (): number => num('pipeline.reviewScoreThreshold', 0, 10),
  },
  recall: {
    topK: (): number => Math.round(num('recall.topK', 1, 50)),
    minConfidence: (): number => num('recall.minConfidence', 0, 1),
    tokenBudget: (): number => Math.round(num('recall.tokenBudget', 50, 32_000)),
  },
  decay: {
    factor: (): number => num('decay.factor', 0, 1),
    floor: (): number => num('decay.floor', 0, 1),
    confirmedFactor: (): number => num('decay.confirmedFactor', 0, 1),
  },
  llm: {
    provider: (): LlmProvider =>
      oneOf<LlmProvider>('llm.provider', ['off', 'openai-compatible', 'vscode-lm']),
    preset: (): LlmPreset => {
      const v = str('llm.preset');
      return isLlmPreset(v) ? v : SETTING_DEFAULTS['llm.preset'];
    },
    /** The configured base URL, else the preset's. */
    baseUrl: (): string => {
      const v = str('llm.baseUrl');
      const preset = config.llm.preset();
      return v || (preset === 'custom' ? '' : LLM_PRESETS[preset].baseUrl);
    },
    /** The configured model, else the preset's. */
    model: (): string => {
      const v = str('llm.model');
      const preset = config.llm.preset();
      return v || (preset === 'custom' ? '' : LLM_PRESETS[preset].model);
    },
  },
  embedding: {
    provider: (): EmbeddingProvider =>
      oneOf<EmbeddingProvider>('embedding.provider', ['local', 'ollama', 'openai']),
    model: (): string => str('embedding.model'),
    modelPath: (): string => str('embedding.modelPath'),
    remoteHost: (): string => str('embedding.remoteHost'),
    baseUrl: (): string => str('embedding.baseUrl'),
  },
  chroma: {
    /** Remote/team Chroma server; empty = the sidecar runs an embedded one in the extension's storage. */
    url: (): string => str('chroma.url'),
    /** Run the embedded Chroma on 127.0.0.1 where it cannot be isolated (other local users can reach it). */
    allowUnisolated: (): boolean => bool('chroma.allowUnisolated'),
  },
  display: {
    /** IANA time zone override, or undefined for the system zone. Invalid names fall back to local. */
    timeZone: (): string | undefined => {
      const v = str('display.timeZone');
      if (!v) return undefined;
      try {
        new Intl.DateTimeFormat('en', { timeZone: v });
        return v;
      } catch {
        return undefined;
      }
    },
  },
  review: {
    dailyDigest: (): boolean => bool('review.dailyDigest'),
    archivePendingAfterDays: (): number => Math.round(num('review.archivePendingAfterDays', 0, 3650)),
  },
  backup: {
    /** off | daily | weekly; scheduled backups also need a folder and a saved backup password. */
    schedule: (): 'off' | 'daily' | 'weekly' => oneOf('backup.schedule', ['off', 'daily', 'weekly'] as const),
    folder: (): string => str('backup.folder'),
    keep: (): number => Math.round(num('backup.keep', 1, 365)),
  },
};

/**
 * Settings the running sidecar cannot pick up: changing one prompts for a restart
 * (rust-analyzer `requiresServerReloadOpts`). Every other `mnemo.*` setting that the sidecar reads is
 * pushed live with `mnemo/config/changed`.
 */
export const REQUIRES_SIDECAR_RESTART: readonly `mnemo.${SettingKey}`[] = [
  'mnemo.chroma.url',
  'mnemo.chroma.allowUnisolated',
  'mnemo.embedding.provider',
  'mnemo.embedding.model',
  'mnemo.embedding.modelPath',
  'mnemo.embedding.remoteHost',
  'mnemo.embedding.baseUrl',
];

/** Settings the sidecar reads live (pushed with `mnemo/config/changed`). */
export const SIDECAR_LIVE_SECTIONS = [
  'mnemo.pipeline',
  'mnemo.episodes',
  'mnemo.ledger',
  'mnemo.recall',
  'mnemo.decay',
  'mnemo.llm',
  'mnemo.backup',
  'mnemo.review',
] as const;

/** Secret keys in SecretStorage. */
export const SECRETS = {
  chromaToken: 'mnemo.chroma.token',
  llmApiKey: 'mnemo.llm.apiKey',
  backupPassword: 'mnemo.backup.password',
} as const;

/** Compile the terminal exclude patterns; returns the regexes and the ones that failed. */
export function compilePatterns(patterns: readonly string[]): { regexes: RegExp[]; invalid: string[] } {
  const regexes: RegExp[] = [];
  const invalid: string[] = [];
  for (const p of patterns) {
    let src = p;
    let flags = '';
    if (src.startsWith('(?i)')) {
      src = src.slice(4);
      flags = 'i';
    }
    try {
      regexes.push(new RegExp(src, flags));
    } catch {
      invalid.push(p);
    }
  }
  return { regexes, invalid };
}
