/**
 * What the sidebar asks of the sidecar, through the real service, store, lexical index and model: a memory's
 * evidence (the session turns it came from, its own turn marked), hybrid search with a cut-off that honours
 * the status filter, recall's near misses with reasons (Preview Injection), and list orders.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MnemoService } from '../../sidecar/service';
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';

const SESSION = {
  project_id: 'shop',
  source_type: 'chat' as const,
  session_id: 'S1',
  messages: [
    { id: 'S1:1', role: 'user', content: 'Can you look at the checkout page layout?' },
    { id: 'S1:2', role: 'assistant', content: 'Sure, the grid is off by one column on mobile.' },
    {
      id: 'S1:3',
      role: 'user',
      content: 'Remember this: we always deploy the shop with make release, never by hand.',
    },
    { id: 'S1:4', role: 'assistant', content: 'Noted, make release it is.' },
  ],
};

describe('sidebar requests', () => {
  const dataDir = tempDataDir();
  let svc: MnemoService;
  before(async () => {
    svc = inProcessService(dataDir);
    await svc.start();
  });
  after(async () => {
    await svc.dispose();
    cleanupDataDir(dataDir);
  });

  test('evidence: the conversation a memory came from, its own turn marked; a hand-written one says why not', async () => {
    const report = await svc.ingest({ ...SESSION, explain: true });
    const kept = report.decisions.find((d) => d.id && /make release/.test(d.text));
    assert.ok(kept?.id, `the deploy rule is kept: ${JSON.stringify(report.decisions)}`);
    const ev = await svc.evidence({ id: kept.id });
    assert.equal(ev.sessions.length, 1);
    const [session] = ev.sessions;
    assert.equal(session.session_id, 'S1');
    assert.equal(session.total_turns, 4);
    assert.deepEqual(
      session.turns.map((t) => [t.episode.message_id, t.matched]),
      [
        ['S1:1', false],
        ['S1:2', false],
        ['S1:3', true],
        ['S1:4', false],
      ],
    );
    assert.match(session.turns[2].episode.text, /make release/);
    const cut = await svc.evidence({ id: kept.id, context: 0 });
    assert.deepEqual(
      cut.sessions[0].turns.map((t) => t.episode.message_id),
      ['S1:3'],
      'context 0: only its own turn',
    );

    const manual = await svc.remember({ text: 'The staging host is stg-7.', project_id: 'shop' });
    const none = await svc.evidence({ id: manual.id! });
    assert.deepEqual(none.sessions, []);
    assert.match(none.note ?? '', /not learned from a conversation/);
    await assert.rejects(svc.evidence({ id: 'mem_nope' }), /No memory/);
  });

  test('hybrid search finds by meaning within a cut-off and leaves wrong memories out when asked', async () => {
    const deploy = await svc.remember({
      text: 'Production deploys go through the release pipeline after the smoke tests pass.',
      project_id: 'shop',
    });
    const unrelated = await svc.remember({ text: 'I prefer dark roast coffee.', project_id: 'shop' });
    const wrong = await svc.remember({
      text: 'Deploy to production by copying files over FTP.',
      project_id: 'shop',
    });
    await svc.markWrong({ id: wrong.id! });
    const r = await svc.search({
      query: 'how do we deploy',
      mode: 'hybrid',
      project_ids: ['shop'],
      status: ['active', 'pending', 'confirmed'],
    });
    const ids = r.items.map((i) => i.memory.id);
    assert.ok(
      ids.includes(deploy.id!),
      `found by meaning: ${JSON.stringify(r.items.map((i) => [i.memory.text, i.score]))}`,
    );
    assert.ok(
      r.items.find((i) => i.memory.id === deploy.id)!.channels.includes('vector'),
      'it says it matched by meaning',
    );
    assert.ok(!ids.includes(unrelated.id!), 'the coffee preference is under the cut');
    assert.ok(!ids.includes(wrong.id!), 'the wrong one is filtered out');
    const withWrong = await svc.search({
      query: 'deploy production FTP',
      mode: 'hybrid',
      project_ids: ['shop'],
    });
    assert.ok(
      withWrong.items.some((i) => i.memory.id === wrong.id),
      'asked for: the wrong one is there',
    );
    assert.ok(
      withWrong.items.find((i) => i.memory.id === wrong.id)!.channels.includes('lexical'),
      'its words (FTP) matched, and it says so',
    );
    const other = await svc.search({ query: 'how do we deploy', mode: 'hybrid', project_ids: ['elsewhere'] });
    assert.ok(!other.items.some((i) => i.memory.project_id === 'shop'), 'another project’s search sees none');
  });

  test('recall explains its near misses: wrong, another project, over top_k', async () => {
    await svc.remember({ text: 'Production deploys need a change ticket first.', project_id: 'billing' });
    const r = await svc.recall({
      query: 'how do we deploy to production',
      project_ids: ['shop'],
      top_k: 1,
      mark_used: false,
      explain: true,
    });
    assert.equal(r.items.length, 1);
    const reasons = new Map((r.near_misses ?? []).map((n) => [n.memory.text, n.reason]));
    assert.equal(reasons.get('Deploy to production by copying files over FTP.'), 'not_recallable');
    assert.equal(reasons.get('Production deploys need a change ticket first.'), 'other_project');
    assert.ok([...reasons.values()].includes('beyond_top_k'), JSON.stringify([...reasons]));
    assert.ok(
      !(r.near_misses ?? []).some((n) => n.memory.id === r.items[0].memory.id),
      'recalled ones are not misses',
    );
    const plain = await svc.recall({ query: 'deploy', project_ids: ['shop'], mark_used: false });
    assert.equal(plain.near_misses, undefined, 'only when asked');
  });

  test('list sorts by confidence, oldest or newest', async () => {
    const all = await svc.list({ project_id: 'shop', sort: 'confidence' });
    const scores = all.items.map((m) => m.confidence_score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    const oldest = await svc.list({ project_id: 'shop', sort: 'oldest' });
    const newest = await svc.list({ project_id: 'shop' });
    assert.equal(oldest.items[0].created_at <= oldest.items.at(-1)!.created_at, true);
    assert.deepEqual(
      oldest.items.map((m) => m.id),
      [...newest.items].reverse().map((m) => m.id),
    );
  });
});
