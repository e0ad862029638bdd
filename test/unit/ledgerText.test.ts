/** How the ledger reads in the editor (src/views/ledgerText.ts): rows, the served page, a memory's section. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LedgerEntry } from '../../sidecar/protocol';
import {
  entryAccessibilityLabel,
  entryDescription,
  entryLabel,
  itemDescription,
  itemLabel,
  servedMarkdown,
  servedSection,
} from '../../src/views/ledgerText';

const now = Date.parse('2026-03-01T10:05:00.000Z');
const entry: LedgerEntry = {
  id: 'srv_0123456789abcdef',
  at: '2026-03-01T10:00:00.000Z',
  served_to: { surface: 'mcp', name: 'claude-code', version: '1.0.3', tool: 'recall' },
  project_ids: ['github.com/acme/plc'],
  query: 'How often does the gateway poll Modbus? | *now*',
  items: [
    {
      id: 'mem_a',
      kind: 'memory',
      score: 0.83,
      project_id: 'p',
      text: 'Polls every 250 ms.',
      status: 'confirmed',
      verdict: 'used',
    },
    { id: 'ep_b', kind: 'evidence', score: 0.5, project_id: 'p', text: 'bob: we poll at 250 ms' },
    { id: 'mem_gone', kind: 'memory', score: 0.4, project_id: 'p' },
  ],
  tokens: 120,
  erased: 1,
};
const ctx = { timeZone: 'UTC', projectLabel: (p: string) => p.split('/').pop()! };

test('a row: the question, then who, when, how many; a read by id says what it read', () => {
  assert.equal(entryLabel(entry), entry.query);
  assert.equal(entryDescription(entry, now), 'claude-code 1.0.3 · 5 minutes ago · 3 items · 1 deleted since');
  const get: LedgerEntry = {
    ...entry,
    query: '',
    served_to: { ...entry.served_to, tool: 'get' },
    erased: undefined,
  };
  assert.equal(entryLabel(get), 'get Polls every 250 ms.');
  assert.equal(
    entryDescription({ ...get, items: [] }, now),
    'claude-code 1.0.3 (get) · 5 minutes ago · nothing recalled',
  );
  assert.match(
    entryAccessibilityLabel(entry, now),
    /^claude-code 1\.0\.3, through MCP, 5 minutes ago: 3 items for "How often/,
  );
});

test('an item: its text now (or that it is gone), its kind, score, status and what was reported', () => {
  assert.equal(itemLabel(entry.items[0]!), 'Polls every 250 ms.');
  assert.equal(itemDescription(entry.items[0]!), 'memory · score 0.83 · confirmed · reported used');
  assert.equal(itemDescription(entry.items[1]!), 'a past turn · score 0.50');
  assert.equal(itemLabel(entry.items[2]!), 'mem_gone (no longer stored)');
});

test('the served page quotes the query and the texts safely, one table row per item', () => {
  const md = servedMarkdown(entry, ctx);
  assert.match(md, /^# What claude-code 1\.0\.3 was shown\n/);
  assert.match(md, /\*\*When:\*\* 2026-03-01 10:00 \(10:00 UTC\)/);
  assert.match(md, /\*\*Through:\*\* MCP, `recall`/);
  assert.match(md, /\*\*Projects:\*\* plc, and Global/);
  assert.ok(md.includes('**Query:** How often does the gateway poll Modbus? | \\*now\\*'), md);
  assert.equal(md.split('\n').filter((l) => /^\| \d /.test(l)).length, 3);
  assert.match(md, /\| 3 \| mem\\_gone — no longer stored \| memory \| 0\.40 \| — \| — \|/);
  assert.match(md, /1 item of this recall was deleted since\./);
});

test("a memory's details: how often it was served, the latest, and what was reported about it", () => {
  const text = servedSection({ entries: [entry], total: 4, more: true }, 'mem_a', { timeZone: 'UTC' });
  assert.equal(
    text,
    [
      '',
      'Served to agents and people',
      '  4 times; the latest 1:',
      '  2026-03-01 10:00 (10:00 UTC)  claude-code 1.0.3 (MCP, recall)  "How often does the gateway poll Modbus? | *now*"  reported used',
      '',
    ].join('\n'),
  );
  assert.match(
    servedSection({ entries: [], total: 0, more: false }, 'mem_a', { timeZone: 'UTC' }),
    /not in the ledger/,
  );
});
