/**
 * The OpenAI-compatible services behind `mnemo.llm.preset`, once for both processes: the extension
 * fills empty `mnemo.llm.baseUrl` / `mnemo.llm.model` settings from them, the sidecar and the CLI resolve
 * `MNEMO_LLM_PRESET` and the preset's key variable with them. package.json lists the same names.
 */

export const LLM_PRESET_NAMES = ['custom', 'glm-4-flash', 'deepseek', 'openai', 'ollama'] as const;
export type LlmPresetName = (typeof LLM_PRESET_NAMES)[number];

export interface LlmPreset {
  /** For messages. */
  label: string;
  baseUrl: string;
  model: string;
  /** Environment variables holding this service's key, tried after MNEMO_LLM_API_KEY (only while the base URL is the preset's host). */
  keyEnv: string[];
  requiresKey: boolean;
}

/** The presets of `mnemo.llm.preset` other than `custom`. Local servers are addressed as 127.0.0.1, never localhost. */
export const LLM_PRESETS: Readonly<Record<Exclude<LlmPresetName, 'custom'>, LlmPreset>> = {
  'glm-4-flash': {
    label: 'GLM-4-Flash',
    baseUrl: 'https://open.bigmodel.cn/api/paas/v4',
    model: 'glm-4-flash',
    keyEnv: ['GLM_API_KEY'],
    requiresKey: true,
  },
  deepseek: {
    label: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    model: 'deepseek-chat',
    keyEnv: ['DEEPSEEK_API_KEY'],
    requiresKey: true,
  },
  openai: {
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    keyEnv: ['OPENAI_API_KEY'],
    requiresKey: true,
  },
  ollama: {
    label: 'Ollama',
    baseUrl: 'http://127.0.0.1:11434/v1',
    model: 'qwen2.5:7b',
    keyEnv: [],
    requiresKey: false,
  },
};

export function isLlmPreset(v: unknown): v is LlmPresetName {
  return typeof v === 'string' && (LLM_PRESET_NAMES as readonly string[]).includes(v);
}
