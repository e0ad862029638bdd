/**
 * "Why was nothing kept?": a terminal session that was learned from and kept nothing, in words — what it
 * was, the pipeline's reason for each line it dropped (shared/reasons.ts), and what keeps something next
 * time. No `vscode` import; unit-tested in test/unit/captureText.test.ts.
 */
import type { CaptureProcessedParams } from '../../sidecar/protocol';
import { markdownText } from '../shared/memoryText';
import { explainDrop } from '../shared/reasons';

export interface NothingKeptText {
  /** "2 commands in “bash”" */
  what: string;
  /** When it was processed, as the reader's clock shows it. */
  when: string;
  outcome: CaptureProcessedParams;
}

export function nothingKeptMarkdown(n: NothingKeptText): string {
  const { outcome: o } = n;
  const lines = [
    '# Nothing was kept from a terminal session',
    '',
    `${markdownText(n.what)}, processed ${markdownText(n.when)}.`,
    '',
    '## Why',
    '',
  ];
  if (o.skipped) lines.push(`- The whole session was passed over: ${markdownText(o.skipped)}.`);
  for (const d of o.dropped_sample)
    lines.push(`- ${markdownText(d.text)}: ${markdownText(explainDrop(d.reason))}.`);
  if (o.dropped > o.dropped_sample.length)
    lines.push(`- … and ${o.dropped - o.dropped_sample.length} more, for the same kinds of reasons.`);
  if (!o.skipped && o.dropped_sample.length === 0) lines.push('- No line of it was a candidate.');
  lines.push(
    '',
    '## What Mnemo keeps from a terminal',
    '',
    '- A command that failed and the command that then fixed it, as a troubleshooting memory (the fix may be a changed flag, another command before it, or one command of a chain: `cd app && ./flash.sh --port 502`).',
    '- Anything you ask it to keep: select the lines and run **Mnemo: Remember Selection**.',
    '',
    'Commands that simply work teach nothing new, so they are not kept; the session’s lines stay searchable as evidence when evidence is kept (`mnemo.episodes.keep`).',
    '',
  );
  return lines.join('\n');
}
