/**
 * A conversation going on is learned before a backlog (issue 32): with older sessions queued (a backfill,
 * or last words released after ten quiet minutes), a turn just written in a watched transcript (or sent
 * live by the editor: `@mnemo`, the terminal) is learned first — after what its own session said before, never before it — and the backlog after, in its order.
 * Through the real service, capture runner, watcher, pipeline, Chroma and model.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { MnemoService } from '../../sidecar/service';
import { projectIdFor } from '../../sidecar/shared/project';
import { claudeSlug } from '../fixtures/capture/claudeCode';
import { cleanupDataDir, serviceForSuite, tempDataDir } from '../support/sidecarSession';

// The agents' transcripts are looked for in this process's home (the service runs in this process).
const home = tempDataDir('mnemo-home-');
process.env.HOME = home;
const shop = join(home, 'src', 'shop');
const dir = join(home, '.claude', 'projects', claudeSlug(shop));
mkdirSync(shop, { recursive: true });
mkdirSync(dir, { recursive: true });
after(() => cleanupDataDir(home));

const turn = (session: string, uuid: string, role: 'user' | 'assistant', text: string, at: Date): string =>
  JSON.stringify({
    type: role,
    uuid,
    sessionId: session,
    cwd: shop,
    isSidechain: false,
    timestamp: at.toISOString(),
    message:
      role === 'user'
        ? { role, content: text }
        : { id: `msg_${uuid}`, role, content: [{ type: 'text', text }] },
  }) + '\n';

const FACTS: Record<string, string> = {
  old1: 'We decided the payment gateway timeout is 1500 ms.',
  old2: 'We decided the staging cluster is rebuilt every Monday at 06:00.',
  old3: 'We agreed to pin Node to version 20 in the CI images.',
  old4: 'We decided the audit log is kept for 400 days.',
  old5: 'We decided every migration needs a rollback script in db/rollback.',
};
const file = (session: string) => join(dir, `${session}.jsonl`);

/** A chat exchange the editor sends (`mnemo/capture/session`): an import, or `@mnemo` going on (`live`). */
const chat = (svc: MnemoService, project: string, session_id: string, said: string, live = false) =>
  svc.capture({
    project_id: project,
    source_type: 'chat',
    session_id,
    messages: [
      { role: 'user', content: said },
      { role: 'assistant', content: 'Noted.' },
    ],
    ...(live ? { live } : {}),
  });

describe('a conversation going on comes before a backlog', () => {
  const suite = serviceForSuite(); // the queue is processed when the test flushes it, not in the background

  test('a turn just written is learned before older captures queued ahead of it, after its own session', async () => {
    const { svc } = suite;
    // The backlog a process left when it died (a backfill under way): the service adopts it, in order.
    const project = projectIdFor(shop);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const backlog = Object.entries(FACTS).map(([session, fact]) => ({
      op: 'add',
      id: `backlog-${session}`,
      at: new Date().toISOString(),
      payload: {
        project_id: project,
        source_type: 'chat',
        session_id: `claude-code:${session}`,
        source_ref: ['agent:claude-code', `session:claude-code:${session}`],
        messages: [
          { role: 'user', content: fact, id: `${session}-u` },
          { role: 'assistant', content: 'Noted.', name: 'Claude Code', id: `${session}-a` },
        ],
      },
    }));
    mkdirSync(join(suite.dataDir, 'queue'), { recursive: true });
    writeFileSync(
      join(suite.dataDir, 'queue', `capture-${dead}.jsonl`),
      backlog.map((l) => JSON.stringify(l)).join('\n') + '\n',
    );
    assert.equal(svc.queue.size, 5, 'the backlog waits in the queue');
    const queued = svc.queue.pending().map((e) => e.payload.session_id!.replace('claude-code:', ''));
    const earlier = new Date(Date.now() - 3_600_000);
    writeFileSync(
      file('old3'),
      turn('old3', 'old3-u', 'user', FACTS.old3!, earlier) +
        turn('old3', 'old3-a', 'assistant', 'Noted.', earlier),
    );

    // old3's session goes on, and a new session starts.
    const now = new Date();
    appendFileSync(
      file('old3'),
      turn('old3', 'old3-u2', 'user', 'We decided the CI runners get 4 cores each.', now) +
        turn('old3', 'old3-a2', 'assistant', 'Gave the CI runners 4 cores.', now),
    );
    writeFileSync(
      file('live'),
      turn('live', 'live-u', 'user', 'We decided the checkout cache keeps entries for 90 seconds.', now) +
        turn('live', 'live-a', 'assistant', 'Set the checkout cache TTL to 90 seconds.', now),
    );
    // Written two seconds ago: settled (read whole, nothing held back as still being written), and live.
    const settled = new Date(Date.now() - 2000);
    for (const f of ['old3', 'live']) utimesSync(file(f), settled, settled);
    // Watching starts.
    svc.sourcesConfigure({
      folders: [shop],
      enabled: { claudeCode: true },
      paused: false,
      exclude_globs: [],
    });
    const deadline = Date.now() + 20_000;
    const queuedTurns = () => svc.queue.pending().flatMap((e) => e.payload.messages.map((m) => m.id));
    const queuedAll = () => ['old3-a2', 'live-a'].every((id) => queuedTurns().some((q) => q?.includes(id)));
    while (!queuedAll() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    svc.sourcesConfigure({ folders: [shop], enabled: { claudeCode: true }, paused: true, exclude_globs: [] });
    assert.equal(svc.queue.size, 7, 'the watcher queued the two new turns');
    // The editor's own captures: an imported chat waits its turn; an @mnemo exchange is a conversation going on.
    await chat(svc, project, 'imported', 'We decided the nightly export runs at 02:00 UTC.');
    await chat(
      svc,
      project,
      'mnemo-chat',
      'We decided the feature flags are kept in config/flags.yaml.',
      true,
    );

    assert.equal(await svc.flush(120_000), 0, 'everything is learned');
    const items = (await svc.list({ project_id: project, limit: 100 })).items;
    const when = (words: string): string => {
      const m = items.find((x) => x.text.includes(words));
      assert.ok(m, `"${words}" learned: ${items.map((x) => x.text).join(' | ')}`);
      return m.created_at;
    };
    const order = [
      ['old1', 'timeout is 1500 ms'],
      ['old2', 'rebuilt every Monday'],
      ['old3', 'version 20'],
      ['old4', 'kept for 400 days'],
      ['old5', 'rollback script'],
      ['old3 goes on', '4 cores'],
      ['live', '90 seconds'],
      ['imported', 'nightly export'],
      ['@mnemo', 'flags.yaml'],
    ]
      .map(([name, words]) => ({ name: name!, at: when(words!) }))
      .sort((a, b) => a.at.localeCompare(b.at))
      .map((x) => x.name);
    assert.deepEqual(
      order.slice(0, 4).sort(),
      ['@mnemo', 'live', 'old3', 'old3 goes on'],
      `the three new turns first, with what their session said before: ${order.join(', ')}`,
    );
    assert.ok(
      order.indexOf('old3') < order.indexOf('old3 goes on'),
      `a session in its order: ${order.join(', ')}`,
    );
    assert.deepEqual(
      order.slice(4),
      [...queued.filter((n) => n !== 'old3'), 'imported'],
      `the backlog after them, in its order: ${order.join(', ')}`,
    );
  });

  test('a conversation that goes on does not hold the backlog back: after four live captures an older one goes', async () => {
    const { svc } = suite;
    const project = 'streak';
    const said: Record<string, string> = {
      B1: 'We decided the invoice PDFs are archived after 90 days.',
      B2: 'We decided the search index is rebuilt every Sunday night.',
      L1: 'We decided the login page uses the new design system.',
      L2: 'We decided the mobile app drops support for Android 9.',
      L3: 'We decided the webhook retries stop after 12 attempts.',
      L4: 'We decided the staging database is reset every Friday.',
      L5: 'We decided the image uploads are capped at 8 MB.',
      L6: 'We decided the analytics events go through Kafka topic events-v2.',
    };
    for (const [name, text] of Object.entries(said))
      await chat(svc, project, `s-${name}`, text, name.startsWith('L'));
    assert.equal(await svc.flush(120_000), 0, 'everything is learned');
    const items = (await svc.list({ project_id: project, limit: 100 })).items;
    const order = Object.entries(said)
      .map(([name, text]) => {
        const m = items.find((x) => x.text === text);
        assert.ok(m, `"${text}" learned: ${items.map((x) => x.text).join(' | ')}`);
        return { name, at: m.created_at };
      })
      .sort((a, b) => a.at.localeCompare(b.at))
      .map((x) => x.name);
    assert.deepEqual(order, ['L1', 'L2', 'L3', 'L4', 'B1', 'L5', 'L6', 'B2']);
  });
});
