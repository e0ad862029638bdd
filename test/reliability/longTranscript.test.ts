import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { FACTS } from '../fixtures/facts';
import {
  SidecarSession,
  cleanupDataDir,
  inProcessService,
  tempDataDir,
  testConfig,
} from '../support/sidecarSession';
import { cli, killChromaServers } from './support';

// Small-scale rerun of the audit's long-transcript run: a 500-message ingest is read to its end (a
// 6,000-character message too, whose last sentence used to be cut off), the CLI says how much it read,
// and a text longer than a memory holds is cut at a character boundary with the result saying so.
const dataDir = tempDataDir('mnemo-rel-long-');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(dataDir);
});

const TAIL_FACT = 'We decided that the spare RTU-88 boards are always stored in cabinet Z-17 of building 4.';

test('a 500-message transcript is read whole and the CLI says so', { timeout: 10 * 60_000 }, async () => {
  const messages: { role: string; content: string }[] = [];
  for (let i = 0; i < 500; i++) {
    const fact = i % 19 === 1 ? FACTS[Math.floor(i / 19) % FACTS.length] : undefined;
    messages.push(
      i === 250
        ? {
            role: 'user',
            // ~6,000 characters of talk, the fact at the very end (past character 4,000)
            content: `We decided this today. ${'We walked through the maintenance checklist again, line by line, and nothing new came up. '.repeat(66)}${TAIL_FACT}`,
          }
        : fact
          ? { role: 'user', content: `We decided: ${fact}.` }
          : { role: i % 2 ? 'assistant' : 'user', content: `ok, checking item ${i} now` },
    );
  }
  const file = join(dataDir, '..', `${dataDir.split('/').pop()}-500.json`);
  writeFileSync(file, JSON.stringify(messages));
  const r = await cli(dataDir, ['ingest', file, '--project', 'long'], { boundMs: 8 * 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Read all 500 messages, each whole\./, r.stdout);

  const s = await SidecarSession.start(testConfig(dataDir));
  try {
    const list = await s.request(P.ListRequest, { project_id: 'long', include_global: false, limit: 5000 });
    const texts = list.items.map((m) => m.text);
    const learned = FACTS.filter((f) => texts.some((t) => t.includes(f))).length;
    console.log(
      `reliability/long: 500 messages, ${learned} of ${FACTS.length} facts learned, ${list.items.length} memories`,
    );
    assert.ok(
      texts.some((t) => t.includes('cabinet Z-17')),
      'the end of the 6,000-character message was read',
    );
    assert.ok(
      texts.some((t) => t.includes(FACTS[0]!)),
      'the first fact (message 2) was read',
    );
  } finally {
    await s.stop();
  }
  // The evidence: the long turn is kept whole, as consecutive parts with its message id.
  const svc = inProcessService(dataDir);
  try {
    await svc.start();
    const parts = (await svc.episodes.find({ project_id: 'long' })).filter((e) => e.message_id === 'm250');
    const kept = parts.map((e) => e.text).join(' ');
    console.log(
      `reliability/long: the ${messages[250]!.content.length}-character turn kept as ${parts.length} episodes`,
    );
    assert.ok(
      parts.length >= 2 && kept.includes('cabinet Z-17'),
      'the episode of the long turn holds its end',
    );
    assert.ok(kept.length >= messages[250]!.content.length - 10, 'nothing of it was cut');
  } finally {
    await svc.dispose();
  }
});

test(
  'a text longer than a memory holds is cut at a character boundary, and the result says so',
  { timeout: 3 * 60_000 },
  async () => {
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      // The emoji straddles character 2,000: a plain slice would leave half of it (a lone surrogate).
      const text = `Remember the incident notes: ${'a'.repeat(2000 - 30)}😀 and what follows is cut`;
      assert.equal(text.charCodeAt(1999), 0xd83d);
      const d = await s.request(P.RememberRequest, { text, project_id: 'long-cut' });
      assert.equal(d.outcome, 'stored');
      assert.deepEqual(d.truncated, { kept: 1999, total: text.length });
      assert.match(d.reason, /cut to its first 2000 of \d+ characters/);
      const m = await s.request(P.GetRequest, { id: d.id! });
      assert.equal(m.text.length, 1999);
      assert.ok(!/[\uD800-\uDFFF]/.test(m.text), 'no half emoji stored');
      const imported = await s.request(P.BulkImportRequest, {
        memories: [
          { text: `Runbook: ${'b'.repeat(2500)}`, project_id: 'long-cut' },
          { text: 'The build cache lives on the nfs-cache-2 host.', project_id: 'long-cut' },
        ],
      });
      assert.equal(imported.imported, 2);
      assert.equal(imported.truncated, 1);
    } finally {
      await s.stop();
    }
  },
);
