/**
 * Issue 38 item 5: a captured terminal session that keeps nothing used to say so only in the sidecar's log
 * ("0 stored … 2 dropped"). The sidecar now tells the extension what each processed capture taught
 * (`mnemo/capture/processed`), with the pipeline's reason for the lines it dropped, so the editor can
 * answer "nothing kept — why?". Through the real stdio sidecar, pipeline and store.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { terminalMessages } from '../../sidecar/shared/terminal';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig, waitFor } from '../support/sidecarSession';

const dataDir = tempDataDir('mnemo-capture-outcome-');
after(() => cleanupDataDir(dataDir));

const at = (s: number): string => new Date(Date.UTC(2026, 11, 5, 6, 0, s)).toISOString();

function terminalSession(id: string, runs: { command: string; exit_code: number; output: string }[]) {
  return {
    project_id: 'outcome',
    source_type: 'terminal' as const,
    session_id: id,
    messages: terminalMessages(
      id,
      runs.map((r, i) => ({ ...r, started_at: at(i * 2), ended_at: at(i * 2 + 1) })),
    ),
  };
}

test(
  'a terminal session that keeps nothing is told with the reason of each dropped line; one with a fix is told what it kept',
  { timeout: 180_000 },
  async () => {
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      const quiet = await s.request(
        P.CaptureSessionRequest,
        terminalSession('term-quiet', [
          { command: 'echo hello', exit_code: 0, output: 'hello' },
          { command: 'npm run migrate', exit_code: 1, output: 'Error: connect ECONNREFUSED 127.0.0.1:5432' },
        ]),
      );
      const fixed = await s.request(
        P.CaptureSessionRequest,
        terminalSession('term-fixed', [
          {
            command: './flash.sh --port 5020',
            exit_code: 1,
            output: 'error: no device answers on port 5020',
          },
          { command: './flash.sh --port 502', exit_code: 0, output: 'flashed 2 MB in 4 s' },
        ]),
      );
      const outcome = (id: string) =>
        waitFor(`the outcome of ${id}`, () => s.captured.find((c) => c.queue_id === id));
      const nothing = await outcome(quiet.queue_id);
      assert.equal(nothing.source_type, 'terminal');
      assert.equal(nothing.project_id, 'outcome');
      assert.equal(nothing.stored + nothing.refreshed + nothing.pending, 0, 'nothing kept');
      assert.deepEqual(
        nothing.dropped_sample.map((d) => [d.text, d.reason]),
        [
          ['$ echo hello', 'drop:command-ok-no-lesson'],
          ['$ npm run migrate', 'drop:command-failed-unfixed'],
        ],
      );
      const kept = await outcome(fixed.queue_id);
      assert.ok(kept.stored >= 1, `the fix is kept: ${JSON.stringify(kept)}`);
    } finally {
      await s.stop();
    }
  },
);
