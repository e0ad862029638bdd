/**
 * The vscode-free half of agent capture in the editor: which agents to ask about (found for this
 * workspace, with sessions, never answered), the question in words, the setting's keys, and the lines a
 * capture and the Sources view show. Unit-tested in test/unit/agentConsent.test.ts.
 */
import type { SourceSummary } from '../../sidecar/protocol';
import { isCaptureSource, SOURCE_SETTING_KEY, type CaptureSourceId } from '../../sidecar/shared/agentSources';

/** The person's answer for an agent in `mnemo.capture.sources` (by its setting key), if any. */
export function answerOf(settings: Record<string, boolean>, id: string): boolean | undefined {
  const key = isCaptureSource(id) ? SOURCE_SETTING_KEY[id] : id;
  const v = settings[key] ?? settings[id];
  return typeof v === 'boolean' ? v : undefined;
}

/** Agents found with sessions for this workspace that the person never answered about. */
export function toAsk(sources: SourceSummary[], settings: Record<string, boolean>): SourceSummary[] {
  return sources.filter((s) => s.detected && s.sessions > 0 && answerOf(settings, s.id) === undefined);
}

/** Agents switched on in the settings. */
export function enabledSources(settings: Record<string, boolean>): CaptureSourceId[] {
  return (Object.keys(SOURCE_SETTING_KEY) as CaptureSourceId[]).filter(
    (id) => answerOf(settings, id) === true,
  );
}

/** `mnemo.capture.sources` with these answers added (keys as the setting names them). */
export function withAnswers(
  settings: Record<string, boolean>,
  answers: Partial<Record<string, boolean>>,
): Record<string, boolean> {
  const next = { ...settings };
  for (const [id, v] of Object.entries(answers)) {
    if (typeof v !== 'boolean') continue;
    const key = isCaptureSource(id) ? SOURCE_SETTING_KEY[id] : id;
    next[key] = v;
    if (key !== id) delete next[id];
  }
  return next;
}

/** "Claude Code (12 sessions), VS Code Chat (1 session)". */
export function sessionList(sources: SourceSummary[]): string {
  return sources.map((s) => `${s.label} (${s.sessions} session${s.sessions === 1 ? '' : 's'})`).join(', ');
}

/** The question, in one sentence and what happens. */
export function consentQuestion(sources: SourceSummary[]): string {
  return `Mnemo found your agents' sessions for this workspace: ${sessionList(sources)}. Learn from them? Mnemo reads them on this machine, redacts secrets first, and never changes them.`;
}

/** A source in the Sources view: "12 sessions here · on · learned 340 messages". */
export function sourceDescription(s: SourceSummary, answer: boolean | undefined, paused: boolean): string {
  if (!s.detected) return 'not found';
  return [
    `${s.sessions} session${s.sessions === 1 ? '' : 's'} here`,
    answer === undefined ? 'not asked' : answer ? (paused ? 'on (paused)' : 'on') : 'off',
    s.captured_messages
      ? `learned ${s.captured_messages} message${s.captured_messages === 1 ? '' : 's'}`
      : '',
  ]
    .filter(Boolean)
    .join(' · ');
}
