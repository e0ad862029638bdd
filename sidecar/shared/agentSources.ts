/**
 * The agents whose transcripts Mnemo can capture (sidecar/capture/, docs/capture.md), once for both
 * processes: their ids, the names people read, the keys of their toggles in `mnemo.capture.sources`, and
 * the `agent:<id>` reference a memory learned from one of their sessions carries in its `source_ref`.
 */

export const CAPTURE_SOURCES = [
  'vscode-chat',
  'claude-code',
  'codex',
  'copilot-cli',
  'cline',
  'roo-code',
  'gemini-cli',
  'cursor',
] as const;
export type CaptureSourceId = (typeof CAPTURE_SOURCES)[number];

export const CAPTURE_SOURCE_LABEL: Readonly<Record<CaptureSourceId, string>> = {
  'vscode-chat': 'VS Code Chat',
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'copilot-cli': 'Copilot CLI',
  cline: 'Cline',
  'roo-code': 'Roo Code',
  'gemini-cli': 'Gemini CLI',
  cursor: 'Cursor',
};

/** The key of a source's toggle in the `mnemo.capture.sources` setting (an object of booleans). */
export const SOURCE_SETTING_KEY: Readonly<Record<CaptureSourceId, string>> = {
  'vscode-chat': 'vscodeChat',
  'claude-code': 'claudeCode',
  codex: 'codex',
  'copilot-cli': 'copilotCli',
  cline: 'cline',
  'roo-code': 'rooCode',
  'gemini-cli': 'geminiCli',
  cursor: 'cursor',
};

export function isCaptureSource(v: unknown): v is CaptureSourceId {
  return typeof v === 'string' && (CAPTURE_SOURCES as readonly string[]).includes(v);
}

const AGENT_REF = 'agent:';

/** The `source_ref` entry naming the agent a session came from. */
export function agentRef(id: CaptureSourceId): string {
  return `${AGENT_REF}${id}`;
}

/** The agent a memory or turn was learned from, when its `source_ref` names one. */
export function agentOfRefs(refs: readonly string[]): CaptureSourceId | undefined {
  for (const r of refs) {
    if (!r.startsWith(AGENT_REF)) continue;
    const id = r.slice(AGENT_REF.length);
    if (isCaptureSource(id)) return id;
  }
  return undefined;
}
