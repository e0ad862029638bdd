/**
 * The turns of a backlog's captures are kept in one write (ingest/episodes.ts `keepEpisodes`): a turn seen
 * in two captures of the batch (a transcript read twice) is written once, with the links of both, the time
 * it was first kept, and — for a turn without a time of its own — the time it was first read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Core } from '../../sidecar/core';
import { keepEpisodes, type PreparedEpisodes } from '../../sidecar/ingest/episodes';
import type { Episode } from '../../sidecar/model';

function episode(id: string, message: string, at: string, memories: string[] = []): Episode {
  return {
    id,
    project_id: 'shop',
    session_id: 's1',
    message_id: message,
    role: 'user',
    speaker: 'user',
    text: `turn ${id}`,
    occurred_at: at,
    source_type: 'chat',
    source_ref: [`msg:${message}`],
    times: [],
    memory_ids: memories,
    created_at: at,
  };
}

/** The part of the core keepEpisodes uses: the episodes' store, here a map that records each write. */
function storeWith(stored: Episode[]): { core: Core; writes: Episode[][] } {
  const rows = new Map(stored.map((e) => [e.id, e]));
  const writes: Episode[][] = [];
  const core = {
    episodes: {
      get: async (ids: string[]) => ids.flatMap((id) => (rows.has(id) ? [rows.get(id)!] : [])),
      upsert: async (records: { episode: Episode; vector: number[] }[]) => {
        writes.push(records.map((r) => r.episode));
        for (const r of records) rows.set(r.episode.id, r.episode);
      },
    },
  } as unknown as Core;
  return { core, writes };
}

const prepared = (episodes: Episode[], undated: string[] = []): PreparedEpisodes => ({
  episodes,
  vectors: episodes.map(() => [1, 0]),
  undated: new Set(undated),
});

void test('a turn in two captures of one write is written once, with the links of both', async () => {
  const first = '2026-12-01T10:00:00.000Z';
  const { core, writes } = storeWith([episode('ep_a', 'm1', first, ['mem_old'])]);
  const counts = await keepEpisodes(core, [
    {
      prepared: prepared([episode('ep_a', 'm1', '2026-12-05T09:00:00.000Z'), episode('ep_b', 'm2', first)]),
      links: new Map([['m1', ['mem_1']]]),
    },
    { prepared: undefined, links: new Map() },
    {
      prepared: prepared([episode('ep_a', 'm1', '2026-12-05T09:30:00.000Z')], ['ep_a']),
      links: new Map([['m1', ['mem_2']]]),
    },
  ]);
  assert.deepEqual(counts, [2, 0, 1], 'each capture is told how many of its turns were kept');
  assert.equal(writes.length, 1, 'one write for the batch');
  assert.deepEqual(
    writes[0]!.map((e) => e.id),
    ['ep_a', 'ep_b'],
    'each turn once',
  );
  const a = writes[0]![0]!;
  assert.deepEqual(
    a.memory_ids,
    ['mem_old', 'mem_1', 'mem_2'],
    'the links stored and those of both captures',
  );
  assert.equal(a.created_at, first, 'kept since it was first kept');
  assert.equal(
    a.occurred_at,
    '2026-12-05T09:00:00.000Z',
    'a turn without a time keeps the one it was first read at',
  );
});

void test('nothing to keep writes nothing', async () => {
  const { core, writes } = storeWith([]);
  assert.deepEqual(await keepEpisodes(core, [{ prepared: undefined, links: new Map() }]), [0]);
  assert.equal(writes.length, 0);
});
