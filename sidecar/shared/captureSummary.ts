/**
 * The one-line summary of what a capture learned from one agent, the same in the CLI, the sidecar's log
 * and the editor's notification.
 */
import type { SourceCaptureSummary } from '../protocol';

/** "Claude Code: 12 sessions, 340 messages → 9 memories stored, 14 pending, 200 dropped; 2 skipped, 3 of Mnemo's own left out." */
export function summaryLine(s: SourceCaptureSummary): string {
  const extra = [
    s.queued ? `${s.queued} session${s.queued === 1 ? '' : 's'} still queued` : '',
    s.skipped ? `${s.skipped} skipped` : '',
    s.injected ? `${s.injected} of Mnemo's own left out` : '',
  ].filter(Boolean);
  return `${s.label}: ${s.sessions} session${s.sessions === 1 ? '' : 's'}, ${s.messages} message${s.messages === 1 ? '' : 's'} → ${s.stored} stored, ${s.refreshed} refreshed, ${s.pending} pending, ${s.dropped} dropped${extra.length ? `; ${extra.join(', ')}` : ''}.`;
}
