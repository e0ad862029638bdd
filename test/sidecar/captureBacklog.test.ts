/**
 * A backlog of captures (a backfill, an Import Chat) is learned in the order it was captured, even though
 * the next capture is prepared (pipeline, embedding) while the one before it is being stored: a value that
 * changed twice ends at its last value, each older one superseded by the next, and every capture of the
 * backlog is processed once, in queue order. The turns of the backlog's captures are kept in one write: each
 * turn once, linked to what was learned from it, also when a session comes twice in the backlog.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

const dataDir = tempDataDir('mnemo-capture-backlog-');
after(() => cleanupDataDir(dataDir));

const PROJECT = 'backlog';
const chat = (id: string, said: string, session = `s-${id}`) => ({
  op: 'add',
  id,
  at: new Date().toISOString(),
  payload: {
    project_id: PROJECT,
    source_type: 'chat',
    session_id: session,
    messages: [
      { role: 'user', content: said },
      { role: 'assistant', content: 'Noted.' },
    ],
  },
});

test(
  'a backlog is learned in queue order: a value changed twice ends at its last value',
  { timeout: 180_000 },
  async () => {
    // The queue of a process that died with eight captures waiting: the sidecar adopts it at start.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const entries = [
      chat('c1', 'We set the payment gateway timeout to 1500 ms.'),
      chat('c2', 'We decided that the staging cluster is rebuilt every Monday at 06:00.'),
      chat('c3', 'From now on every migration needs a rollback script in db/rollback.'),
      chat('c4', 'We set the payment gateway timeout to 3000 ms.'),
      chat('c5', 'We agreed to pin Node to version 20 in the CI images.'),
      chat('c6', 'Always run the contract tests before publishing the client package.'),
      chat('c7', 'We set the payment gateway timeout to 4500 ms.'),
      chat('c8', 'We decided the audit log is kept for 400 days.'),
      // c2's session again (a transcript read twice): its turns are the same turns.
      chat('c9', 'We decided that the staging cluster is rebuilt every Monday at 06:00.', 's-c2'),
    ];
    mkdirSync(join(dataDir, 'queue'), { recursive: true });
    writeFileSync(
      join(dataDir, 'queue', `capture-${dead}.jsonl`),
      entries.map((l) => JSON.stringify(l)).join('\n') + '\n',
    );
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      await s.waitFor(
        'the backlog processed',
        async () => (await s.request(P.StatsRequest, {})).queued === 0,
        120_000,
      );
      const processed = s.logs
        .map((l) => /Processed capture (c\d)/.exec(l.message)?.[1])
        .filter((id): id is string => !!id);
      assert.deepEqual(
        processed,
        entries.map((e) => e.id),
        'each capture once, in queue order',
      );

      const all = (await s.request(P.ListRequest, { project_id: PROJECT, limit: 100 })).items;
      const timeout = (ms: string) => all.find((m) => m.text.includes(`timeout to ${ms} ms`));
      const [t1500, t3000, t4500] = ['1500', '3000', '4500'].map(timeout);
      assert.ok(
        t1500 && t3000 && t4500,
        `all three values stored: ${all.map((m) => `${m.text} [${m.status}]`).join(' | ')}`,
      );
      assert.equal(t4500.status, 'active', 'the last value is the one in use');
      assert.equal(t3000.status, 'superseded');
      assert.equal(t3000.superseded_by, t4500.id);
      assert.equal(t1500.status, 'superseded');
      assert.equal(t1500.superseded_by, t3000.id);
      for (const said of [
        'rebuilt every Monday',
        'rollback script',
        'Node to version 20',
        'contract tests',
        '400 days',
      ])
        assert.ok(
          all.some((m) => m.text.includes(said) && m.status !== 'superseded'),
          `learned: ${said}`,
        );

      // Each memory's evidence: its session's two turns, stored once, the person's linked to it.
      for (const m of all.filter((x) => x.status !== 'superseded')) {
        const ev = await s.request(P.EvidenceRequest, { id: m.id });
        assert.equal(ev.sessions.length, 1, `one session for: ${m.text}`);
        const [session] = ev.sessions;
        assert.equal(
          session!.total_turns,
          2,
          `${m.text}: ${JSON.stringify(session!.turns.map((t) => t.episode.text))}`,
        );
        const said = session!.turns.find((t) => t.episode.role === 'user')!;
        assert.ok(said.matched && said.episode.memory_ids.includes(m.id), `the turn links to ${m.text}`);
      }
    } finally {
      await s.stop();
    }
  },
);
