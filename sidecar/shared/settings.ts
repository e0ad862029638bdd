/**
 * The defaults of the `mnemo.*` settings, as package.json `contributes.configuration` declares them —
 * the single source of truth; test/unit/settings.test.ts fails when this table and the manifest differ.
 * The extension's typed getters (src/config.ts) fall back to these when the manifest has no value, and
 * the sidecar (sidecar/config.ts, lifecycle/decay.ts) fills whatever the extension or CLI left out from
 * them. Keys are the setting names without `mnemo.`; a mistyped key is a compile error.
 */

export const SETTING_DEFAULTS = {
  'capture.terminal.enabled': true,
  'capture.terminal.excludePatterns': [
    '^\\s*(ls|ll|la|cd|pwd|clear|cls|exit|history|echo|cat|less|more|man|which|whoami)\\b',
    '(?i)passw(or)?d',
    '(?i)(secret|token|api[_-]?key)\\s*=',
  ] as readonly string[],
  'capture.terminal.idleGapSeconds': 300,
  'capture.terminal.maxOutputBytes': 8192,
  'capture.chat.enabled': true,
  'capture.sources': {} as Readonly<Record<string, boolean>>,
  'capture.excludeGlobs': [] as readonly string[],
  'pipeline.dedupDistance': 0.15,
  'pipeline.reviewScoreThreshold': 4,
  'episodes.keep': true,
  'episodes.retentionDays': 0,
  'ledger.retentionDays': 90,
  'recall.topK': 3,
  'recall.minConfidence': 0.6,
  'recall.tokenBudget': 800,
  'decay.factor': 0.95,
  'decay.floor': 0.1,
  'decay.confirmedFactor': 0.98,
  'llm.provider': 'off',
  'llm.preset': 'custom',
  'llm.baseUrl': '',
  'llm.model': '',
  'embedding.provider': 'local',
  'embedding.model': '',
  'embedding.modelPath': '',
  'embedding.remoteHost': '',
  'embedding.baseUrl': '',
  'chroma.url': '',
  'chroma.allowUnisolated': false,
  'display.timeZone': '',
  'review.dailyDigest': true,
  'review.archivePendingAfterDays': 30,
  'backup.schedule': 'off',
  'backup.folder': '',
  'backup.keep': 7,
} as const;

/** A `mnemo.*` setting, without the `mnemo.` prefix. */
export type SettingKey = keyof typeof SETTING_DEFAULTS;

type KeysOf<T> = { [K in SettingKey]: (typeof SETTING_DEFAULTS)[K] extends T ? K : never }[SettingKey];
export type NumberSettingKey = KeysOf<number>;
export type StringSettingKey = KeysOf<string>;
export type BooleanSettingKey = KeysOf<boolean>;

/** The default of a setting (package.json's). */
export function settingDefault<K extends SettingKey>(key: K): (typeof SETTING_DEFAULTS)[K] {
  return SETTING_DEFAULTS[key];
}
