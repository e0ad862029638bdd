/**
 * Picks the extraction model from the `mnemo.llm.*` settings (or, for the CLI, the environment):
 * `off` (rules only, nothing leaves the machine), `openai-compatible` (a preset or any base URL), or
 * `vscode-lm` (VS Code's models through the extension).
 */
import type { LlmSettingsInput } from '../protocol';
import { LLM_PRESETS, isLlmPreset, type LlmPresetName } from '../shared/llmPresets';
import { OPENAI_COMPATIBLE_DEFAULTS, OpenAiCompatibleProvider, isLoopback } from './openai';
import { LlmUnavailableError, type LlmProvider } from './types';
import { VSCODE_LM_DEFAULT_TIMEOUT_MS, VsCodeLmProvider, type VsCodeLmCall } from './vscodeLm';

export * from './types';
export {
  CircuitBreaker,
  OpenAiCompatibleProvider,
  OPENAI_COMPATIBLE_DEFAULTS,
  parseRetryAfter,
  type OpenAiCompatibleOptions,
} from './openai';
export { VsCodeLmProvider, estimateTokens, type VsCodeLmCall } from './vscodeLm';

export { LLM_PRESET_NAMES, LLM_PRESETS, type LlmPreset, type LlmPresetName } from '../shared/llmPresets';

export type LlmProviderKind = LlmSettingsInput['provider'];

/** LLM settings as the sidecar uses them: the protocol's settings plus preset and timeouts, all resolved. */
export interface LlmSettings {
  /** `off` (default), `openai-compatible` or `vscode-lm`. */
  provider: LlmProviderKind;
  /** Default `custom` (use baseUrl/model as given). */
  preset: LlmPresetName;
  /** OpenAI-compatible base URL, e.g. `https://api.deepseek.com/v1`; default the preset's. */
  baseUrl?: string;
  /** Model name (openai-compatible) or family/id hint (vscode-lm); default the preset's. */
  model?: string;
  /** Bearer key; never logged. */
  apiKey?: string;
  /** Connect timeout in ms. Default 5000 (docs/design.md, Extraction with an LLM). */
  connectTimeoutMs: number;
  /** Read timeout in ms (openai-compatible) / whole-call timeout (vscode-lm). Default 30000 / 60000. */
  readTimeoutMs: number;
}

/** Input of {@link resolveLlmSettings}: the protocol's settings, optionally with preset and timeouts. */
export type LlmSettingsLike = Partial<LlmSettingsInput> & {
  preset?: string;
  connectTimeoutMs?: number;
  readTimeoutMs?: number;
};

const PROVIDERS: readonly LlmProviderKind[] = ['off', 'openai-compatible', 'vscode-lm'];

function positive(...vals: unknown[]): number | undefined {
  for (const v of vals) {
    const n = typeof v === 'string' && v.trim() ? Number(v) : v;
    if (typeof n === 'number' && Number.isFinite(n) && n > 0) return n;
  }
  return undefined;
}

function host(url: string | undefined): string {
  try {
    return url ? new URL(url).host.toLowerCase() : '';
  } catch {
    return '';
  }
}

/**
 * Settings over environment over preset defaults. Empty strings count as unset (the extension sends
 * `""` for empty settings). Environment: MNEMO_LLM_PROVIDER, MNEMO_LLM_PRESET, MNEMO_LLM_BASE_URL,
 * MNEMO_LLM_MODEL, MNEMO_LLM_API_KEY, the preset's own key variable (GLM_API_KEY, DEEPSEEK_API_KEY,
 * OPENAI_API_KEY — used only while the base URL is the preset's, so a key never goes to another
 * host), MNEMO_LLM_CONNECT_TIMEOUT_MS, MNEMO_LLM_READ_TIMEOUT_MS. With no provider given, setting
 * MNEMO_LLM_PRESET or MNEMO_LLM_BASE_URL turns `openai-compatible` on; a key variable alone does not
 * (sending sessions off the machine is always an explicit choice).
 */
export function resolveLlmSettings(
  input: LlmSettingsLike | undefined = {},
  env: NodeJS.ProcessEnv = process.env,
): LlmSettings {
  const i = input ?? {};
  const str = (...vals: (string | undefined)[]): string | undefined =>
    vals.map((v) => v?.trim()).find((v) => !!v);
  const presetRaw = str(i.preset, env.MNEMO_LLM_PRESET);
  const preset: LlmPresetName = isLlmPreset(presetRaw) ? presetRaw : 'custom';
  const envProvider = str(env.MNEMO_LLM_PROVIDER);
  let provider: LlmProviderKind = (PROVIDERS as readonly string[]).includes(i.provider ?? '')
    ? i.provider!
    : (PROVIDERS as readonly string[]).includes(envProvider ?? '')
      ? (envProvider as LlmProviderKind)
      : 'off';
  if (!i.provider && !envProvider && (preset !== 'custom' || str(env.MNEMO_LLM_BASE_URL)))
    provider = 'openai-compatible';
  const p = preset === 'custom' ? undefined : LLM_PRESETS[preset];
  const baseUrl = str(i.baseUrl, env.MNEMO_LLM_BASE_URL, p?.baseUrl)?.replace(/\/+$/, '');
  const model = str(i.model, env.MNEMO_LLM_MODEL, provider === 'openai-compatible' ? p?.model : undefined);
  const presetKey = p && host(baseUrl) === host(p.baseUrl) ? str(...p.keyEnv.map((k) => env[k])) : undefined;
  const apiKey = str(i.apiKey, env.MNEMO_LLM_API_KEY, presetKey);
  const out: LlmSettings = {
    provider,
    preset,
    connectTimeoutMs:
      positive(i.connectTimeoutMs, env.MNEMO_LLM_CONNECT_TIMEOUT_MS) ??
      OPENAI_COMPATIBLE_DEFAULTS.connectTimeoutMs,
    readTimeoutMs:
      positive(i.readTimeoutMs, env.MNEMO_LLM_READ_TIMEOUT_MS) ??
      (provider === 'vscode-lm' ? VSCODE_LM_DEFAULT_TIMEOUT_MS : OPENAI_COMPATIBLE_DEFAULTS.readTimeoutMs),
  };
  if (baseUrl) out.baseUrl = baseUrl;
  if (model) out.model = model;
  if (apiKey) out.apiKey = apiKey;
  return out;
}

export interface LlmDeps {
  /** The extension's vscode.lm, bound to `conn.sendRequest(LlmCompleteRequest, ...)`; absent in the CLI. */
  vscodeLm?: VsCodeLmCall;
  /** Extra options for the OpenAI-compatible provider (tests: short backoff, a clock). */
  openai?: Partial<import('./openai').OpenAiCompatibleOptions>;
}

/** Always fails with the same sentence: a misconfiguration the user must see on each extraction. */
class MisconfiguredProvider implements LlmProvider {
  constructor(
    readonly id: string,
    private readonly error: LlmUnavailableError,
  ) {}
  complete(): Promise<never> {
    return Promise.reject(this.error);
  }
}

/**
 * The provider for these settings; `undefined` when the provider is `off`. A misconfiguration (no base
 * URL, vscode-lm outside VS Code) yields a provider whose calls fail with a sentence saying what to set,
 * so the status bar shows it rather than extraction silently doing nothing. Accepts resolved or raw settings.
 */
export function createLlmProvider(
  settings: LlmSettingsLike | LlmSettings,
  deps: LlmDeps = {},
  env: NodeJS.ProcessEnv = process.env,
): LlmProvider | undefined {
  const s = resolveLlmSettings(settings, env); // idempotent on resolved settings
  if (s.provider === 'off') return undefined;
  if (s.provider === 'vscode-lm') {
    if (!deps.vscodeLm) {
      return new MisconfiguredProvider(
        'vscode-lm',
        new LlmUnavailableError(
          'not-configured',
          'The LLM is unavailable: mnemo.llm.provider is "vscode-lm", which only works inside VS Code; use "openai-compatible" here.',
        ),
      );
    }
    const o: ConstructorParameters<typeof VsCodeLmProvider>[0] = {
      call: deps.vscodeLm,
      timeoutMs: s.readTimeoutMs,
    };
    if (s.model) o.model = s.model;
    return new VsCodeLmProvider(o);
  }
  if (!s.baseUrl) {
    return new MisconfiguredProvider(
      'openai-compatible',
      new LlmUnavailableError(
        'not-configured',
        'The LLM is unavailable: no base URL is set; choose mnemo.llm.preset or set mnemo.llm.baseUrl (env MNEMO_LLM_BASE_URL).',
      ),
    );
  }
  if (!s.model) {
    return new MisconfiguredProvider(
      'openai-compatible',
      new LlmUnavailableError(
        'not-configured',
        'The LLM is unavailable: no model is set; set mnemo.llm.model (env MNEMO_LLM_MODEL) or choose mnemo.llm.preset.',
      ),
    );
  }
  const p = s.preset === 'custom' ? undefined : LLM_PRESETS[s.preset];
  const samePresetHost = !!p && host(s.baseUrl) === host(p.baseUrl);
  const knownHost = Object.values(LLM_PRESETS).find(
    (x) => x.requiresKey && host(x.baseUrl) === host(s.baseUrl),
  );
  const keyEnv = ['MNEMO_LLM_API_KEY', ...(samePresetHost ? p!.keyEnv : [])].join(' or ');
  try {
    return new OpenAiCompatibleProvider({
      baseUrl: s.baseUrl,
      model: s.model,
      apiKey: s.apiKey,
      // The big hosted APIs always need a key: say so instead of sending a request that gets a 401.
      requiresKey: !isLoopbackUrl(s.baseUrl) && (samePresetHost ? p!.requiresKey : !!knownHost),
      label: samePresetHost ? p!.label : knownHost ? knownHost.label : undefined,
      keyHint: `set it with "Mnemo: Set LLM API Key" or the ${keyEnv} environment variable`,
      connectTimeoutMs: s.connectTimeoutMs,
      readTimeoutMs: s.readTimeoutMs,
      ...deps.openai,
    });
  } catch (err) {
    if (err instanceof LlmUnavailableError) return new MisconfiguredProvider('openai-compatible', err);
    throw err;
  }
}

function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopback(new URL(url).hostname);
  } catch {
    return false;
  }
}
