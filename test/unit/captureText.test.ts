import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CaptureProcessedParams } from '../../sidecar/protocol';
import { nothingKeptMarkdown } from '../../src/views/captureText';

const outcome = (over: Partial<CaptureProcessedParams> = {}): CaptureProcessedParams => ({
  queue_id: 'q1',
  project_id: 'p',
  source_type: 'terminal',
  stored: 0,
  refreshed: 0,
  pending: 0,
  dropped: 2,
  messages_read: 4,
  dropped_sample: [
    { text: '$ npm run migrate', reason: 'drop:command-failed-unfixed' },
    { text: '$ make *all*', reason: 'drop:command-ok-no-lesson' },
  ],
  ...over,
});

test('"nothing kept — why?" names the session and gives each dropped line its reason in words', () => {
  const md = nothingKeptMarkdown({
    what: '2 commands in “bash”',
    when: '2026-12-05 07:00',
    outcome: outcome(),
  });
  assert.match(md, /^# Nothing was kept from a terminal session/);
  assert.match(md, /2 commands in “bash”, processed 2026-12-05 07:00\./);
  assert.match(md, /- \$ npm run migrate: the command failed and no later command of the session fixed it/);
  // Markdown in a command is shown as typed, not rendered.
  assert.match(md, /- \$ make \\\*all\\\*: the command worked and taught nothing new/);
  assert.doesNotMatch(md, /more, for the same kinds/);
});

test('a session passed over says why, and more drops than the sample are counted', () => {
  const md = nothingKeptMarkdown({
    what: '1 command in “zsh”',
    when: 'now',
    outcome: outcome({ skipped: 'too short', dropped: 9 }),
  });
  assert.match(md, /The whole session was passed over: too short\./);
  assert.match(md, /… and 7 more, for the same kinds of reasons\./);
});
