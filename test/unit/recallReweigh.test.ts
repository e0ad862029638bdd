import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Episode } from '../../sidecar/model';
import { episodeFacts } from '../../sidecar/store/lexical/facts';
import { reweigh, type Reweighable } from '../../sidecar/recall/recall';

type Turn = Reweighable & { id: string };
const turn = (id: string, text: string, at: string, rrf: number, times: Episode['times'] = []): Turn => {
  const episode = { id, message_id: id, text, occurred_at: at, times, memory_ids: [] } as unknown as Episode;
  return { id, facts: episodeFacts(episode), rrf };
};
const order = (cs: Turn[]) => [...cs].sort((a, b) => b.rrf - a.rrf).map((c) => c.id);

describe('recall: reweighing the fused candidates', () => {
  it('a turn that asks the same question ranks below the turn that answers it', () => {
    const cs = [
      turn('asked', 'quick q, which port does the gateway listen on?', '2026-04-01T10:00:00Z', 0.033),
      turn('told', 'the gateway listens on 9443', '2026-03-01T10:00:00Z', 0.03),
    ];
    assert.deepEqual(order(reweigh(cs, 'Which port does the gateway listen on?')), ['told', 'asked']);
  });

  it('a question about the current state prefers the newer of two values, in English and Chinese', () => {
    for (const q of ['Which port is the gateway on now?', '网关现在用哪个端口']) {
      const cs = [
        turn('old', 'the gateway moved to 8443', '2026-01-10T10:00:00Z', 0.032),
        turn('new', 'the gateway is on 9443 since Monday', '2026-05-10T10:00:00Z', 0.03),
      ];
      assert.deepEqual(order(reweigh(cs, q)), ['new', 'old'], q);
    }
  });

  it('a question not about the current state keeps the fused order', () => {
    const cs = [
      turn('old', 'the gateway moved to 8443', '2026-01-10T10:00:00Z', 0.032),
      turn('new', 'the gateway is on 9443 since Monday', '2026-05-10T10:00:00Z', 0.03),
    ];
    assert.deepEqual(order(reweigh(cs, 'Which ports has the gateway used?')), ['old', 'new']);
  });
});

describe('recall: questions that ask when', () => {
  it('prefer a turn that says when', () => {
    const plain = turn('plain', 'the root canal went fine', '2026-03-01T10:00:00Z', 0.032);
    const dated = turn('dated', 'I had the root canal two days ago', '2026-03-01T10:00:00Z', 0.03, [
      { start: '2026-02-27', end: '2026-02-27' },
    ] as Episode['times']);
    assert.deepEqual(order(reweigh([plain, dated], 'When did I have the root canal?')), ['dated', 'plain']);
  });
});

describe('recall: questions that name a time', () => {
  const asked = new Date('2026-12-01T09:00:00Z');
  it('prefer what was said then: a holiday with the days after it, a month as it is', () => {
    const other = turn(
      'other',
      'I have a funny story about presents, remind me later',
      '2025-11-20T10:00:00Z',
      0.03,
    );
    const then = turn(
      'then',
      'my partner got me an espresso machine for Christmas',
      '2025-12-29T22:25:00Z',
      0.02,
    );
    assert.deepEqual(order(reweigh([other, then], 'What did Lina get for Christmas 2025?', asked)), [
      'then',
      'other',
    ]);
    const march = turn('march', 'I am really into Project Hail Mary', '2025-03-14T10:00:00Z', 0.02);
    const april = turn('april', 'I am really into Dune', '2025-04-02T10:00:00Z', 0.03);
    assert.deepEqual(order(reweigh([april, march], 'Which book was Melanie into in March 2025?', asked)), [
      'march',
      'april',
    ]);
  });

  it('a question that names no time, or one nothing was said in, keeps the fused order', () => {
    const a = turn('a', 'the gateway moved to 8443', '2025-12-26T10:00:00Z', 0.03);
    const b = turn('b', 'the gateway is on 9443', '2025-06-10T10:00:00Z', 0.02);
    assert.deepEqual(order(reweigh([a, b], 'Which ports has the gateway used?', asked)), ['a', 'b']);
    assert.deepEqual(order(reweigh([a, b], 'What changed at Halloween 2019?', asked)), ['a', 'b']);
  });
});
