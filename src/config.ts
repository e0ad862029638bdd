/**
 * Typed getters over `contributes.configuration` (package.json is the single source of truth for
 * defaults; the fallbacks here only matter when the manifest is missing a key). Settings are flat
 * `mnemo.<section>.<key>`; nothing else in src/ calls `getConfiguration('mnemo')` directly.
 */
import * as vscode from 'vscode';
import type { EmbeddingSettings } from '../sidecar/config';
import type { LlmSettingsInput } from '../sidecar/protocol';

function cfg(scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('mnemo', scope);
}

function num(key: string, fallback: number, min = -Infinity, max = Infinity): number {
  const v = cfg().get<number>(key);
  if (typeof v !== 'number' || !Number.isFinite(v)) return fallback;
  return Math.min(max, Math.max(min, v));
}

function str(key: string, fallback: string): string {
  const v = cfg().get<string>(key);
  return typeof v === 'string' ? v.trim() : fallback;
}

function bool(key: string, fallback: boolean): boolean {
  const v = cfg().get<boolean>(key);
  return typeof v === 'boolean' ? v : fallback;
}

export type LlmProvider = LlmSettingsInput['provider'];
export type LlmPreset = 'custom' | 'glm-4-flash' | 'deepseek' | 'openai' | 'ollama';
export type EmbeddingProvider = EmbeddingSettings['provider'];

/** OpenAI-compatible endpoints behind `mnemo.llm.preset`; used when baseUrl/model are left empty. */
export const LLM_PRESETS: Record<Exclude<LlmPreset, 'custom'>, { baseUrl: string; model: string }> = {
  'glm-4-flash': { baseUrl: 'https://open.bigmodel.cn/api/paas/v4', model: 'glm-4-flash' },
  deepseek: { baseUrl: 'https://api.deepseek.com/v1', model: 'deepseek-chat' },
  openai: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
  ollama: { baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5:7b' },
};

export const DEFAULT_TERMINAL_EXCLUDES = [
  '^\\s*(ls|ll|la|cd|pwd|clear|cls|exit|history|echo|cat|less|more|man|which|whoami)\\b',
  '(?i)passw(or)?d',
  '(?i)(secret|token|api[_-]?key)\\s*=',
];

export const config = {
  capture: {
    terminal: {
      enabled: (): boolean => bool('capture.terminal.enabled', true),
      /** Regexes (a leading `(?i)` makes one case-insensitive); invalid ones are skipped and logged. */
      excludePatterns: (): string[] => {
        const v = cfg().get<unknown>('capture.terminal.excludePatterns');
        return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : DEFAULT_TERMINAL_EXCLUDES;
      },
      idleGapSeconds: (): number => num('capture.terminal.idleGapSeconds', 300, 5, 86_400),
      maxOutputBytes: (): number => num('capture.terminal.maxOutputBytes', 8192, 256, 1_048_576),
    },
    chat: {
      enabled: (): boolean => bool('capture.chat.enabled', true),
    },
  },
  pipeline: {
    dedupDistance: (): number => num('pipeline.dedupDistance', 0.15, 0, 2),
    reviewScoreThreshold: (): number => num('pipeline.reviewScoreThreshold', 4, 0, 10),
  },
  recall: {
    topK: (): number => Math.round(num('recall.topK', 3, 1, 50)),
    minConfidence: (): number => num('recall.minConfidence', 0.6, 0, 1),
    tokenBudget: (): number => Math.round(num('recall.tokenBudget', 800, 50, 32_000)),
  },
  decay: {
    factor: (): number => num('decay.factor', 0.95, 0, 1),
    floor: (): number => num('decay.floor', 0.1, 0, 1),
    confirmedFactor: (): number => num('decay.confirmedFactor', 0.98, 0, 1),
  },
  llm: {
    provider: (): LlmProvider => {
      const v = str('llm.provider', 'off');
      return v === 'openai-compatible' || v === 'vscode-lm' ? v : 'off';
    },
    preset: (): LlmPreset => {
      const v = str('llm.preset', 'custom');
      return v in LLM_PRESETS ? (v as LlmPreset) : 'custom';
    },
    /** The configured base URL, else the preset's. */
    baseUrl: (): string => {
      const v = str('llm.baseUrl', '');
      const preset = config.llm.preset();
      return v || (preset === 'custom' ? '' : LLM_PRESETS[preset].baseUrl);
    },
    /** The configured model, else the preset's. */
    model: (): string => {
      const v = str('llm.model', '');
      const preset = config.llm.preset();
      return v || (preset === 'custom' ? '' : LLM_PRESETS[preset].model);
    },
  },
  embedding: {
    provider: (): EmbeddingProvider => {
      const v = str('embedding.provider', 'local');
      return v === 'ollama' || v === 'openai' ? v : 'local';
    },
    model: (): string => str('embedding.model', ''),
    modelPath: (): string => str('embedding.modelPath', ''),
    remoteHost: (): string => str('embedding.remoteHost', ''),
    baseUrl: (): string => str('embedding.baseUrl', ''),
  },
  chroma: {
    /** Remote/team Chroma server; empty = the sidecar runs an embedded one in the extension's storage. */
    url: (): string => str('chroma.url', ''),
  },
  display: {
    /** IANA time zone override, or undefined for the system zone. Invalid names fall back to local. */
    timeZone: (): string | undefined => {
      const v = str('display.timeZone', '');
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
    dailyDigest: (): boolean => bool('review.dailyDigest', true),
  },
  backup: {
    /** off | daily | weekly; scheduled backups also need a folder and a saved backup password. */
    schedule: (): 'off' | 'daily' | 'weekly' => {
      const v = str('backup.schedule', 'off');
      return v === 'daily' || v === 'weekly' ? v : 'off';
    },
    folder: (): string => str('backup.folder', ''),
    keep: (): number => Math.round(num('backup.keep', 7, 1, 365)),
  },
};

/**
 * Settings the running sidecar cannot pick up: changing one prompts for a restart
 * (rust-analyzer `requiresServerReloadOpts`). Every other `mnemo.*` setting that the sidecar reads is
 * pushed live with `mnemo/config/changed`.
 */
export const REQUIRES_SIDECAR_RESTART = [
  'mnemo.chroma.url',
  'mnemo.embedding.provider',
  'mnemo.embedding.model',
  'mnemo.embedding.modelPath',
  'mnemo.embedding.remoteHost',
  'mnemo.embedding.baseUrl',
] as const;

/** Settings the sidecar reads live (pushed with `mnemo/config/changed`). */
export const SIDECAR_LIVE_SECTIONS = ['mnemo.pipeline', 'mnemo.recall', 'mnemo.decay', 'mnemo.llm', 'mnemo.backup'] as const;

/** Secret keys in SecretStorage. */
export const SECRETS = {
  chromaToken: 'mnemo.chroma.token',
  llmApiKey: 'mnemo.llm.apiKey',
  backupPassword: 'mnemo.backup.password',
} as const;

/** Compile the terminal exclude patterns; returns the regexes and the ones that failed. */
export function compilePatterns(patterns: string[]): { regexes: RegExp[]; invalid: string[] } {
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
