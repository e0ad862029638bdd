/**
 * Pause Capture and `mnemo.capture.excludeGlobs` apply to every agent's sessions (issue 32, "Consent
 * first"): a session of an excluded or paused folder is not read at all — nothing sent, no cursor moved — so
 * it is learned whole once the folder is no longer kept out.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { scopeFor } from '../../sidecar/capture/capture';
import { emptyPrefs, type CapturePrefs } from '../../sidecar/capture/prefs';
import type { SessionInput } from '../../sidecar/protocol';
import { writeClaudeCode } from '../fixtures/capture/claudeCode';
import { writeGemini } from '../fixtures/capture/geminiCli';
import { captureHarness } from '../support/captureHarness';

const CWD = '/home/dev/shop';
const h = captureHarness([CWD]);
writeClaudeCode(h.home, CWD);
writeGemini(h.home, CWD);
after(() => h.cleanup());

/** Discovers and captures both agents' sessions under these preferences: what reached the ingest path. */
async function runWith(prefs: CapturePrefs): Promise<{ sent: SessionInput[]; kept: number }> {
  const scope = scopeFor([CWD], prefs);
  const before = h.sent.length;
  const { files, other } = await h.capture.discover(h.env, ['claude-code', 'gemini-cli'], scope);
  for (const f of files) await h.capture.captureFile(f, scope, {});
  return { sent: h.sent.slice(before), kept: [...other.values()].reduce((a, b) => a + b, 0) };
}

test('an excluded folder: no agent session of it is read', async () => {
  const r = await runWith({ ...emptyPrefs(), excludeGlobs: ['**/shop/**'] });
  assert.deepEqual(r.sent, [], 'nothing of an excluded folder reaches the ingest path');
  assert.ok(r.kept > 0, 'its sessions were found and kept out');
});

test('a paused folder: no agent session of it is read', async () => {
  const r = await runWith({ ...emptyPrefs(), paused: { [CWD]: true } });
  assert.deepEqual(r.sent, [], 'nothing of a paused folder reaches the ingest path');
  assert.ok(r.kept > 0, 'its sessions were found and kept out');
});

test('once the folder is no longer kept out, its sessions are learned whole', async () => {
  const r = await runWith(emptyPrefs());
  const agents = new Set(r.sent.flatMap((s) => s.messages.map((m) => m.name).filter(Boolean)));
  assert.ok(agents.has('Claude Code') && agents.has('Gemini CLI'), [...agents].join(', '));
  const again = await runWith(emptyPrefs());
  assert.deepEqual(again.sent, [], 'and learned once');
});
