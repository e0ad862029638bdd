/**
 * How turns are kept in Chroma, through the real service, Chroma server and model: a turn's text is a
 * metadata key, not a Chroma document (Chroma's full-text index of documents was half of its cost per
 * turn, and Mnemo never asks it), and its fields other than the filtered ones are one JSON key. A store
 * written before keeps working: its turns are read, found and quoted, and relinking one (what a new
 * memory or a mark-wrong does) neither loses its text nor brings back a field the update cleared.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Metadata } from 'chromadb';
import { episodeId, type Episode } from '../../sidecar/model';
import { episodeCollectionFor } from '../../sidecar/store/episodeStore';
import { serviceForSuite } from '../support/sidecarSession';

/** A turn as the store kept it before: one metadata key per field, the text as the document. */
function olderShape(e: Episode): Metadata {
  return {
    project_id: e.project_id,
    session_id: e.session_id,
    message_id: e.message_id,
    role: e.role,
    speaker: e.speaker,
    occurred_at: e.occurred_at,
    occurred_ts: Date.parse(e.occurred_at),
    source_type: e.source_type,
    source_ref: JSON.stringify(e.source_ref),
    times: JSON.stringify(e.times),
    memory_ids: JSON.stringify(e.memory_ids),
    created_at: e.created_at,
    ...(e.previous_id !== undefined ? { previous_id: e.previous_id } : {}),
    ...(e.next_id !== undefined ? { next_id: e.next_id } : {}),
    tier: e.tier ?? '',
    held: e.held ?? '',
    chatter: e.chatter ?? '',
  };
}

describe('how turns are kept in Chroma', () => {
  const suite = serviceForSuite();
  const raw = (ids?: string[]) =>
    suite.svc.store.onCollection(episodeCollectionFor(suite.svc.store.active!), 'read turns', (col) =>
      col.get({ ...(ids ? { ids } : {}), include: ['documents', 'metadatas'] }),
    );

  test('a turn is written once, as metadata: no Chroma document, the filtered keys and one key for the rest', async () => {
    await suite.svc.ingest({
      project_id: 'shop',
      source_type: 'chat',
      session_id: 'S1',
      messages: [
        {
          id: 'S1:1',
          role: 'user',
          name: 'Lena',
          content: 'We moved the payment retries to the orders-worker queue with a 30 second backoff.',
          timestamp: '2026-11-02T09:00:00Z',
        },
        {
          id: 'S1:2',
          role: 'assistant',
          name: 'assistant',
          content: 'Noted: retries live on orders-worker, backoff 30 s.',
          timestamp: '2026-11-02T09:00:10Z',
        },
      ],
    });
    const rows = await raw();
    assert.equal(rows.ids.length, 2, 'both turns are kept');
    assert.deepEqual(rows.documents, [null, null], 'no turn is a Chroma document');
    for (const m of rows.metadatas)
      assert.deepEqual(Object.keys(m ?? {}).sort(), [
        'message_id',
        'occurred_ts',
        'project_id',
        'session_id',
        'text',
        'turn',
      ]);
    const turns = await suite.svc.episodes.find({ project_id: 'shop' });
    const first = turns.find((e) => e.message_id === 'S1:1');
    assert.ok(first, JSON.stringify(turns));
    assert.match(first.text, /orders-worker queue with a 30 second backoff/);
    assert.equal(first.speaker, 'Lena');
    assert.equal(first.occurred_at, '2026-11-02T09:00:00.000Z');
    assert.equal(first.next_id, turns.find((e) => e.message_id === 'S1:2')?.id, 'the turns stay linked');
    const r = await suite.svc.recall({
      query: 'Where do payment retries run?',
      project_ids: ['shop'],
      mark_used: false,
    });
    assert.ok(
      r.items.some((i) => i.memory.text.includes('orders-worker')),
      `recall finds the turn or what was learned from it: ${JSON.stringify(r.items.map((i) => i.memory.text))}`,
    );
  });

  test('a store written before is read, quoted and relinked without losing its text or reviving a cleared field', async () => {
    const at = '2025-03-04T10:00:00.000Z';
    const turn = (
      message_id: string,
      speaker: string,
      text: string,
      extra: Partial<Episode> = {},
    ): Episode => ({
      id: episodeId('legacy', 'L1', message_id, text),
      project_id: 'legacy',
      session_id: 'L1',
      message_id,
      role: 'user',
      speaker,
      text,
      occurred_at: at,
      source_type: 'chat',
      source_ref: [`msg:${message_id}`],
      times: [],
      memory_ids: [],
      created_at: at,
      ...extra,
    });
    const held = turn('L1:1', 'Ada', 'The Grafana board for the PLC line is called plc-overview-7.', {
      held: 'instruction-shaped text',
      tier: 'person',
    });
    const plain = turn('L1:2', 'Ben', 'The nightly export to the warehouse runs at 02:30 UTC.', {
      tier: 'person',
    });
    const vectors = await suite.svc.embedding.embed([held, plain].map((e) => `${e.speaker}: ${e.text}`));
    await suite.svc.store.onCollection(
      episodeCollectionFor(suite.svc.store.active!),
      'write older turns',
      (col) =>
        col.upsert({
          ids: [held.id, plain.id],
          embeddings: vectors,
          documents: [held.text, plain.text],
          metadatas: [olderShape(held), olderShape(plain)],
        }),
    );

    const read = await suite.svc.episodes.get([held.id, plain.id]);
    assert.deepEqual(
      read.sort((a, b) => a.message_id.localeCompare(b.message_id)),
      [held, plain],
      'every field of an older turn is read back',
    );
    const r = await suite.svc.recall({
      query: 'When does the nightly warehouse export run?',
      project_ids: ['legacy'],
      mark_used: false,
    });
    assert.ok(
      r.items.some((i) => i.kind === 'evidence' && i.memory.text.includes('02:30 UTC')),
      `an older turn is quoted as evidence: ${JSON.stringify(r.items.map((i) => [i.kind, i.memory.text]))}`,
    );

    // Relinking rewrites the fields, never the text: the held reason cleared by the update stays cleared.
    await suite.svc.episodes.updateMetadata([
      { ...held, held: undefined, memory_ids: ['mem_0123456789abcdef'] },
    ]);
    const [after] = await suite.svc.episodes.get([held.id]);
    assert.equal(after?.text, held.text, 'the text is kept');
    assert.equal(after?.held, undefined, 'the cleared field does not come back from the older keys');
    assert.deepEqual(after?.memory_ids, ['mem_0123456789abcdef']);
    assert.equal(after?.tier, 'person');
    const row = await raw([held.id]);
    assert.equal(
      row.documents[0],
      held.text,
      'the older row keeps its document until the turn is written again',
    );
  });
});
