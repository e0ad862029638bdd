/**
 * Agents' transcripts through the real sidecar, pipeline and store (issue 32): a Claude Code history in
 * the workspace folder is listed, captured with consent and learned — the decision in Chinese becomes a
 * memory with its agent, recall names the agent, the secret in a tool result never reaches disk, Mnemo's
 * own injected recall block is not learned again, a message is learned once however often its file is
 * rewritten, and a session of another folder goes to that folder's project, never this one.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { projectIdFor } from '../../sidecar/shared/project';
import * as P from '../../sidecar/protocol';
import {
  backdate,
  CC_DECISION,
  CC_RULE,
  CC_SECRET,
  claudeSlug,
  otherFolderLines,
  writeClaudeCode,
} from '../fixtures/capture/claudeCode';
import {
  cleanupDataDir,
  inProcessService,
  SidecarSession,
  tempDataDir,
  testConfig,
} from '../support/sidecarSession';

function* filesUnder(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* filesUnder(p);
    else if (e.isFile()) yield p;
  }
}

describe("capturing agents' transcripts", () => {
  const dataDir = tempDataDir();
  const home = tempDataDir('mnemo-home-');
  const shop = join(home, 'src', 'shop');
  const other = join(home, 'src', 'other');
  mkdirSync(shop, { recursive: true });
  mkdirSync(other, { recursive: true });
  const fx = writeClaudeCode(home, shop);
  // A session of another folder, with a fact of its own, where Claude Code keeps it.
  const otherSession = join(
    home,
    '.claude',
    'projects',
    claudeSlug(other),
    'b1b2b3b4-0000-4000-8000-000000000001.jsonl',
  );
  mkdirSync(join(otherSession, '..'), { recursive: true });
  writeFileSync(otherSession, otherFolderLines(other).join('\n') + '\n');
  backdate(otherSession);
  let s: SidecarSession;
  const project = projectIdFor(shop);

  before(async () => {
    s = await SidecarSession.start(testConfig(dataDir), {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
    });
  });
  after(async () => {
    await s?.stop();
    cleanupDataDir(dataDir);
    rmSync(home, { recursive: true, force: true });
  });

  test('the sources of the workspace are listed with their session counts, nothing read', async () => {
    const { sources } = await s.request(P.SourcesListRequest, { folders: [shop] });
    const cc = sources.find((x) => x.id === 'claude-code')!;
    assert.equal(cc.detected, true);
    assert.equal(cc.sessions, 3, 'the session, the resumed one and the sub-agent');
    assert.equal(cc.captured_messages, 0);
    assert.equal(sources.find((x) => x.id === 'codex')?.detected, false);
  });

  test("one capture learns the decision, names the agent in recall, and leaves Mnemo's own text out", async () => {
    const r = await s.request(P.SourcesCaptureRequest, { folders: [shop], sources: ['claude-code'] });
    const cc = r.sources[0]!;
    assert.equal(cc.sessions, 3);
    assert.ok(cc.messages >= 10, `messages ${cc.messages}`);
    assert.ok(cc.stored + cc.pending >= 1, JSON.stringify(cc));
    assert.ok(cc.injected >= 2, 'the hook-injected block and the recall call');
    assert.ok(cc.skipped >= 2, 'the junk line and the unknown record type are counted');
    assert.deepEqual(cc.projects, [project]);
    const list = await s.request(P.ListRequest, { project_id: project, limit: 500 });
    const texts = list.items.map((m) => m.text);
    assert.ok(
      list.items.some((m) => m.text.includes('30 秒') && m.source_ref.includes('agent:claude-code')),
      texts.join('\n'),
    );
    assert.ok(
      !texts.some((t) => t.includes('6543') || t.includes('VPN')),
      'a recall block is never learned again',
    );
    const recalled = await s.request(P.RecallRequest, {
      query: '支付服务的超时时间是多少',
      project_ids: [project],
    });
    assert.match(recalled.block, /Claude Code/, recalled.block);
  });

  test('the secret inside a tool result never reaches the data folder', () => {
    for (const f of filesUnder(dataDir)) {
      if (f.includes(`${join('models', '')}`)) continue;
      const bytes = readFileSync(f);
      assert.ok(
        !bytes.toString('utf8').includes(CC_SECRET) && !bytes.toString('latin1').includes(CC_SECRET),
        f,
      );
    }
  });

  test('rewriting a transcript three times learns nothing again', async () => {
    const before = await s.request(P.ListRequest, { project_id: project, limit: 500 });
    for (let i = 0; i < 3; i++) {
      const text = readFileSync(fx.session);
      rmSync(fx.session);
      writeFileSync(fx.session, text);
      backdate(fx.session);
      const r = await s.request(P.SourcesCaptureRequest, { folders: [shop], sources: ['claude-code'] });
      assert.equal(r.sources[0]!.messages, 0, `rewrite ${i + 1}`);
    }
    const after_ = await s.request(P.ListRequest, { project_id: project, limit: 500 });
    assert.deepEqual(
      after_.items.map((m) => [m.id, m.times_seen]).sort(),
      before.items.map((m) => [m.id, m.times_seen]).sort(),
      'no memory added or refreshed',
    );
  });

  test('a session of another folder goes to its own project, never this one', async () => {
    const { sources } = await s.request(P.SourcesListRequest, { folders: [shop] });
    assert.equal(sources.find((x) => x.id === 'claude-code')?.other_sessions, 1);
    const none = await s.request(P.SourcesCaptureRequest, { folders: [shop], sources: ['claude-code'] });
    assert.equal(none.sources[0]!.messages, 0, 'a capture for this folder does not read it');
    const r = await s.request(P.SourcesCaptureRequest, {
      folders: [shop],
      sources: ['claude-code'],
      transcript: otherSession,
      final: true,
    });
    assert.deepEqual(r.sources[0]!.projects, [projectIdFor(other)]);
    const mine = await s.request(P.ListRequest, { project_id: project, limit: 500 });
    const theirs = await s.request(P.ListRequest, { project_id: projectIdFor(other), limit: 500 });
    assert.ok(
      theirs.items.some((m) => m.text.includes('pnpm')),
      theirs.items.map((m) => m.text).join('\n'),
    );
    assert.ok(
      mine.items.every((m) => !m.text.includes('pnpm')),
      'never in this project',
    );
  });

  test('a pasted log repeating one line and a megabyte tool output: the session is learned, the output cut', async () => {
    // Issue 39 items 2 and 3 (fixed on branch rel): a repeated line once gave two identical pieces one id, and a
    // megabyte message froze the sidecar. Capture cuts the output before ingest; the pasted log goes through.
    const file = join(
      home,
      '.claude',
      'projects',
      claudeSlug(shop),
      'c1c2c3c4-0000-4000-8000-000000000039.jsonl',
    );
    const common = {
      cwd: shop,
      sessionId: 'c1c2c3c4',
      isSidechain: false,
      timestamp: '2026-10-14T12:00:00.000Z',
    };
    const log = 'WARN pool exhausted, retrying in 250 ms\n'.repeat(500);
    const huge = `BEGIN ${'0123456789abcdef'.repeat(65_536)} END`;
    writeFileSync(
      file,
      [
        {
          ...common,
          type: 'user',
          uuid: 'p1',
          message: { role: 'user', content: `The worker logs this all night:\n${log}` },
        },
        {
          ...common,
          type: 'user',
          uuid: 'p2',
          message: {
            role: 'user',
            content: 'We decided to raise the pool size to 40 connections for the billing worker.',
          },
        },
        {
          ...common,
          type: 'assistant',
          uuid: 'p3',
          message: {
            id: 'msg_P3',
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                id: 'toolu_big',
                name: 'Bash',
                input: { command: 'cat /var/log/worker.log' },
              },
            ],
          },
        },
        {
          ...common,
          type: 'user',
          uuid: 'p4',
          message: {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_big', content: huge }],
          },
        },
        {
          ...common,
          type: 'assistant',
          uuid: 'p5',
          message: {
            id: 'msg_P5',
            role: 'assistant',
            content: [{ type: 'text', text: 'The pool size is now 40.' }],
          },
        },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    backdate(file);
    const started = Date.now();
    const r = await s.request(P.SourcesCaptureRequest, { folders: [shop], sources: ['claude-code'] });
    assert.ok(Date.now() - started < 120_000, 'no freeze');
    assert.equal(r.sources[0]!.queued, 0, JSON.stringify(r.sources[0]));
    const list = await s.request(P.ListRequest, { project_id: project, limit: 500 });
    assert.ok(
      list.items.some((m) => m.text.includes('pool size to 40')),
      list.items.map((m) => m.text).join('\n'),
    );
    const stats = await s.request(P.StatsRequest, {});
    assert.ok(stats.total > 0, 'the sidecar answers during and after');
  });

  test('each turn is kept once as evidence', async () => {
    await s.stop();
    const svc = inProcessService(dataDir);
    await svc.start();
    try {
      const turns = await svc.episodes.find({ project_id: project });
      const decision = turns.filter((e) => e.text === CC_DECISION);
      assert.equal(decision.length, 1, 'the resumed session replays the decision: kept once');
      assert.equal(turns.filter((e) => e.text === CC_RULE).length, 1);
      assert.ok(
        turns.every((e) => !e.text.includes('mem_0123456789abcdef')),
        'no recall block as a turn',
      );
      assert.ok(turns.some((e) => e.speaker === 'Claude Code'));
      const big = turns.filter((e) => e.text.includes('BEGIN') || e.text.includes('output truncated'));
      assert.ok(
        big.length >= 1 && big.every((e) => e.text.length < 3_200),
        'the megabyte output is cut, with a note',
      );
    } finally {
      await svc.dispose();
    }
  });
});
