/**
 * The ledger of what agents were shown (sidecar/lifecycle/ledger.ts): append and read back newest first,
 * a torn last line after a crash, day files and retention, a day that grows goes on in parts, bounded
 * reads, erasure of a deleted memory and of a wiped project in place, which recall a report counts for,
 * and how a client's own name is kept (sidecar/served.ts).
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { newEntryId, RecallLedger, sameClient } from '../../sidecar/lifecycle/ledger';
import { mcpClient } from '../../sidecar/agents/audit';
import { servedTo } from '../../sidecar/served';
import type { LedgerEntry, ServedTo } from '../../sidecar/protocol';

const root = mkdtempSync(join(tmpdir(), 'mnemo-ledger-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `l${++n}`);

const claude: ServedTo = { surface: 'mcp', name: 'claude-code', version: '1.0.3', tool: 'recall' };
const cli: ServedTo = { surface: 'cli', name: 'cli', tool: 'recall' };

function entry(at: string, items: [string, string][], over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: newEntryId(),
    at,
    served_to: claude,
    project_ids: ['p'],
    query: 'How often does the gateway poll Modbus?',
    items: items.map(([id, project_id], i) => ({
      id,
      kind: id.startsWith('ep_') ? 'evidence' : 'memory',
      score: 0.9 - i / 10,
      project_id,
    })),
    tokens: 42,
    ...over,
  };
}

test('appends are read back newest first, filtered by client, memory and project; files are private', () => {
  const dir = fresh();
  const ledger = new RecallLedger(dir);
  const a = entry('2026-03-01T10:00:00.000Z', [['mem_a', 'p']]);
  const b = entry(
    '2026-03-01T11:00:00.000Z',
    [
      ['mem_b', 'p'],
      ['ep_1', 'p'],
    ],
    { served_to: cli },
  );
  const c = entry('2026-03-02T09:00:00.000Z', [['mem_a', 'q']], { project_ids: ['q'] });
  for (const e of [a, b, c]) ledger.append(e);
  ledger.close();
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  for (const f of readdirSync(dir)) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
  assert.deepEqual(readdirSync(dir).sort(), ['served-2026-03-01.jsonl', 'served-2026-03-02.jsonl']);

  const all = new RecallLedger(dir).read({ limit: 10 });
  assert.deepEqual(
    all.entries.map((e) => e.id),
    [c.id, b.id, a.id],
  );
  assert.deepEqual(all.entries[1], b, 'an entry reads back as it was written');
  assert.equal(all.more, false);
  const ledger2 = new RecallLedger(dir);
  assert.deepEqual(
    ledger2.read({ limit: 10, client: 'CLAUDE' }).entries.map((e) => e.id),
    [c.id, a.id],
  );
  const forA = ledger2.read({ limit: 1, memory_id: 'mem_a' });
  assert.deepEqual(
    forA.entries.map((e) => e.id),
    [c.id],
  );
  assert.equal(forA.total, 2, 'a memory filter counts every entry that served it');
  assert.equal(forA.more, true);
  assert.deepEqual(
    ledger2.read({ limit: 10, project_ids: ['q'] }).entries.map((e) => e.id),
    [c.id],
  );
  const first = ledger2.read({ limit: 1 });
  assert.equal(first.more, true, 'more entries than the limit');
  assert.equal(ledger2.read({ limit: 5, entry_id: b.id }).entries[0]?.id, b.id);
});

test('a torn last line (a crash mid-write) is skipped, and the next process does not glue its line to it', () => {
  const dir = fresh();
  const ledger = new RecallLedger(dir);
  const a = entry('2026-03-01T10:00:00.000Z', [['mem_a', 'p']]);
  ledger.append(a);
  ledger.close();
  const file = join(dir, 'served-2026-03-01.jsonl');
  const whole = JSON.stringify({ type: 'served', ...entry('2026-03-01T10:05:00.000Z', [['mem_x', 'p']]) });
  appendFileSync(file, whole.slice(0, whole.length / 2)); // killed halfway through the write
  assert.deepEqual(
    new RecallLedger(dir).read({ limit: 10 }).entries.map((e) => e.id),
    [a.id],
  );

  const next = new RecallLedger(dir);
  const b = entry('2026-03-01T10:06:00.000Z', [['mem_b', 'p']]);
  next.append(b);
  next.close();
  assert.deepEqual(
    new RecallLedger(dir).read({ limit: 10 }).entries.map((e) => e.id),
    [b.id, a.id],
    'the entry after the torn line is kept',
  );
});

test('retention deletes whole days older than it, never today or yesterday', () => {
  const dir = fresh();
  const ledger = new RecallLedger(dir);
  for (const day of ['2026-02-20', '2026-02-27', '2026-02-28', '2026-03-09', '2026-03-10'])
    ledger.append(entry(`${day}T12:00:00.000Z`, [['mem_a', 'p']]));
  ledger.close();
  const now = new Date('2026-03-10T08:00:00.000Z');
  assert.equal(ledger.prune(10, now), 2, '02-20 and 02-27 are wholly older than 10 days');
  assert.deepEqual(readdirSync(dir).sort(), [
    'served-2026-02-28.jsonl',
    'served-2026-03-09.jsonl',
    'served-2026-03-10.jsonl',
  ]);
  assert.equal(ledger.prune(1, now), 1);
  assert.deepEqual(readdirSync(dir).sort(), ['served-2026-03-09.jsonl', 'served-2026-03-10.jsonl']);
  assert.equal(ledger.prune(0, now), 0, 'a retention under a day deletes nothing');
});

test('a day that grows goes on in parts; reads go across them and stop at their byte budget', () => {
  const dir = fresh();
  const ledger = new RecallLedger(dir, 2000);
  const written: string[] = [];
  for (let i = 0; i < 40; i++) {
    const e = entry(`2026-03-01T10:${String(i).padStart(2, '0')}:00.000Z`, [['mem_a', 'p']]);
    ledger.append(e);
    written.push(e.id);
  }
  ledger.close();
  const parts = readdirSync(dir).sort();
  assert.ok(parts.length > 3, `several parts: ${parts.join(', ')}`);
  for (const p of parts) assert.ok(statSync(join(dir, p)).size < 2000 + 400, `${p} stays near its size`);
  const all = new RecallLedger(dir, 2000).read({ limit: 100 });
  assert.deepEqual(
    all.entries.map((e) => e.id),
    [...written].reverse(),
    'newest first across parts',
  );
  const bounded = new RecallLedger(dir, 2000).read({ limit: 100, memory_id: 'mem_a' }, 1000);
  assert.ok(bounded.entries.length > 0 && bounded.entries.length < 40, `${bounded.entries.length} read`);
  assert.equal(bounded.more, true, 'a read cut at its budget says so');
  assert.equal(bounded.total, undefined, 'and does not pretend to know the total');
});

test('deleting a memory erases it from every entry and its reports, in place; other items stay', async () => {
  const dir = fresh();
  const ledger = new RecallLedger(dir);
  const a = entry('2026-03-01T10:00:00.000Z', [
    ['mem_secret0000000001', 'p'],
    ['mem_keep', 'p'],
  ]);
  const b = entry('2026-03-01T11:00:00.000Z', [['mem_secret0000000001', 'p']]);
  ledger.append(a);
  ledger.append(b);
  ledger.appendReport({
    at: '2026-03-01T11:01:00.000Z',
    entry: b.id,
    memory_id: 'mem_secret0000000001',
    project_id: 'p',
    verdict: 'used',
    served_to: claude,
  });
  const file = join(dir, 'served-2026-03-01.jsonl');
  const size = statSync(file).size;
  assert.equal(
    ledger.read({ limit: 10, entry_id: b.id }).entries[0]?.items[0]?.verdict,
    'used',
    'a report shows on the item it was about',
  );
  assert.equal(await ledger.erase(['mem_secret0000000001']), 3);
  ledger.append(entry('2026-03-01T12:00:00.000Z', [['mem_keep', 'p']]));
  ledger.close();
  assert.ok(!readFileSync(file, 'utf8').includes('mem_secret'), 'the id is nowhere in the file');
  assert.ok(statSync(file).size > size, 'lines were rewritten in place, the later one appended after them');
  const after = new RecallLedger(dir).read({ limit: 10 });
  assert.equal(after.entries.length, 3, 'every recall is still listed');
  const [, b2, a2] = after.entries;
  assert.deepEqual(b2!.items, []);
  assert.equal(b2!.erased, 1);
  assert.deepEqual(
    a2!.items.map((i) => i.id),
    ['mem_keep'],
  );
  assert.equal(a2!.query, a.query);
});

test('wiping a project removes its items, its reports and the entries served only in it', async () => {
  const dir = fresh();
  const ledger = new RecallLedger(dir);
  const onlyP = entry(
    '2026-03-01T10:00:00.000Z',
    [
      ['mem_p', 'p'],
      ['mem_g', 'global'],
    ],
    {
      query: 'the wiped project secret plan',
    },
  );
  const both = entry(
    '2026-03-01T11:00:00.000Z',
    [
      ['mem_p', 'p'],
      ['mem_q', 'q'],
    ],
    { project_ids: ['p', 'q'] },
  );
  const onlyQ = entry('2026-03-01T12:00:00.000Z', [['mem_q', 'q']], { project_ids: ['q'] });
  for (const e of [onlyP, both, onlyQ]) ledger.append(e);
  assert.equal(await ledger.wipeProject('p'), 2);
  ledger.close();
  const raw = readFileSync(join(dir, 'served-2026-03-01.jsonl'), 'utf8');
  assert.ok(!raw.includes('secret plan'), 'the query of a recall served only in the project is gone');
  assert.ok(!raw.includes('mem_p'), 'its memories are gone');
  const left = new RecallLedger(dir).read({ limit: 10 }).entries;
  assert.deepEqual(
    left.map((e) => e.id),
    [onlyQ.id, both.id],
  );
  assert.deepEqual(left[1]!.project_ids, ['q']);
  assert.deepEqual(
    left[1]!.items.map((i) => i.id),
    ['mem_q'],
  );
});

test('a report counts for the newest recall of the day that served the memory to that client, once', () => {
  const dir = fresh();
  const ledger = new RecallLedger(dir);
  const old = entry('2026-03-01T08:00:00.000Z', [['mem_a', 'p']]);
  const recent = entry('2026-03-02T09:00:00.000Z', [['mem_a', 'p']]);
  const toCli = entry('2026-03-02T09:30:00.000Z', [['mem_b', 'p']], { served_to: cli });
  for (const e of [old, recent, toCli]) ledger.append(e);
  const since = '2026-03-01T10:00:00.000Z';
  const first = ledger.unreported('mem_a', { ...claude, tool: 'report' }, since);
  assert.ok(
    typeof first === 'object' && first.entry.id === recent.id,
    'the tool it reports with does not matter',
  );
  assert.equal(ledger.unreported('mem_b', claude, since), 'none', 'served to another client');
  assert.equal(ledger.unreported('mem_a', { ...claude, version: '2.0.0' }, since), 'none');
  ledger.appendReport({
    at: '2026-03-02T09:40:00.000Z',
    entry: recent.id,
    memory_id: 'mem_a',
    project_id: 'p',
    verdict: 'used',
    served_to: claude,
  });
  assert.equal(
    ledger.unreported('mem_a', claude, since),
    'reported',
    'the older recall is outside the window',
  );
  ledger.close();
});

test("a client's own name is printable, redacted and short; an unknown surface is `other`", () => {
  const to = servedTo({
    surface: 'telepathy',
    name: `evil\u001b[2J agent ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVc ${'x'.repeat(300)}`,
    version: 42,
  });
  assert.equal(to.surface, 'other');
  assert.ok(!to.name.includes('\u001b') && !to.name.includes('ghp_'), to.name);
  assert.ok(to.name.startsWith('evil [2J agent [REDACTED:github-token]'), to.name);
  assert.ok(to.name.length <= 100);
  assert.equal(to.version, undefined, 'a version that is not text is left out');
  assert.equal(to.tool, 'recall');
  assert.deepEqual(servedTo(undefined), { surface: 'other', name: 'unknown', tool: 'recall' });
  assert.deepEqual(servedTo(to), to, 'checking twice changes nothing');
});

test('an MCP client is recorded, and its reports matched, under the same checked name', () => {
  const server = {
    server: { getClientVersion: () => ({ name: 'my\u0007agent', version: '2.0' }) },
  } as unknown as McpServer;
  const to = mcpClient(server, 'report');
  assert.deepEqual(to, { surface: 'mcp', name: 'my agent', version: '2.0', tool: 'report' });
  assert.ok(sameClient(to, servedTo({ ...to, tool: 'recall' })));
});
