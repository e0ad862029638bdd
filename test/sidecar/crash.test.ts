/**
 * Crash safety: kill -9 Chroma during a batch of writes, kill -9 the sidecar with captures queued.
 * Nothing lost, nothing doubled.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { chromaCliPath, heartbeat } from '../../sidecar/store/chromaServer';
import * as P from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';
import { FACTS } from '../fixtures/facts';

/** Phrased as decisions, which the rule filter keeps. */
function facts(n: number, tag: string): string[] {
  return FACTS.slice(0, n).map((f) => `We decided that ${f[0].toLowerCase()}${f.slice(1)} (${tag}).`);
}

describe('crash safety', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanupDataDir));

  test('kill -9 of Chroma during a batch: restarted, the batch completes, every memory stored once', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      await s.request(P.RememberRequest, { text: 'warm-up: the model is loaded', project_id: 'crash' });
      const firstPid = s.chromaPid();
      const texts = facts(30, 'batch');
      const writes = texts.map((text, i) =>
        (async () => {
          if (i === 8) process.kill(firstPid, 'SIGKILL');
          return s.request(P.RememberRequest, { text, project_id: 'crash' });
        })(),
      );
      const results = await Promise.all(writes);
      assert.equal(results.length, 30);
      assert.notEqual(s.chromaPid(), firstPid, 'a new Chroma server was started');
      const list = await s.request(P.ListRequest, { project_id: 'crash', limit: 1000 });
      for (const t of texts)
        assert.equal(list.items.filter((m) => m.text === t).length, 1, `stored exactly once: ${t}`);
      assert.equal(list.total, 31);
    } finally {
      await s.stop();
    }
  });

  test('kill -9 of the sidecar with captures queued: after restart the queue drains, nothing lost or doubled', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    // No model on the first run: captures can only queue.
    const s1 = await SidecarSession.start(
      testConfig(dataDir, { embedding: { modelPath: '/nonexistent/model' } }),
    );
    const texts = facts(12, 'queued');
    for (let i = 0; i < texts.length; i += 3) {
      const r = await s1.request(P.CaptureSessionRequest, {
        project_id: 'queue',
        source_type: 'chat',
        messages: texts.slice(i, i + 3).map((content, j) => ({ role: 'user', content, id: `q${i + j}` })),
      });
      assert.ok(r.queue_id);
    }
    const warn = await s1.waitFor('a warning that the model is missing', () =>
      s1.statuses.find((x) => x.health === 'warning' && /model/i.test(x.message)),
    );
    assert.ok(warn.queued && warn.queued >= 4, `queued: ${warn.queued}`);
    await s1.kill9();

    const s2 = await SidecarSession.start(testConfig(dataDir));
    try {
      const flushed = await s2.request(P.FlushQueueRequest, { timeout_ms: 120_000 });
      assert.equal(flushed.remaining, 0);
      const list = await s2.request(P.ListRequest, { project_id: 'queue', limit: 1000 });
      for (const t of texts) {
        const n = list.items.filter((m) => m.text.includes(t.slice(16, 50))).length;
        assert.equal(n, 1, `exactly once: ${t} (found ${n})`);
      }
      // A second restart replays nothing.
      await s2.stop();
      const s3 = await SidecarSession.start(testConfig(dataDir));
      try {
        const again = await s3.request(P.FlushQueueRequest, { timeout_ms: 60_000 });
        assert.equal(again.remaining, 0);
        const list2 = await s3.request(P.ListRequest, { project_id: 'queue', limit: 1000 });
        assert.equal(list2.total, list.total);
      } finally {
        await s3.stop();
      }
    } finally {
      await s2.stop();
    }
  });

  test('a second sidecar on the same data folder uses the running Chroma server', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const a = await SidecarSession.start(testConfig(dataDir));
    try {
      await a.request(P.RememberRequest, {
        text: 'shared store: gateway restarts at 02:00 UTC every Sunday',
        project_id: 'shared',
      });
      const pid = a.chromaPid();
      const b = await SidecarSession.start(testConfig(dataDir));
      try {
        const list = await b.request(P.ListRequest, { project_id: 'shared' });
        assert.equal(list.total, 1);
        assert.equal(b.chromaPid(), pid, 'no competing server was started');
      } finally {
        await b.stop();
      }
    } finally {
      await a.stop();
    }
  });
});

describe('remote / team Chroma server', () => {
  test('with chromaUrl the sidecar uses that server and starts none of its own', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const teamDir = tempDataDir('mnemo-team-');
    const dataDir = tempDataDir();
    const server = spawn(
      process.execPath,
      [chromaCliPath(), 'run', '--path', teamDir, '--port', String(port), '--host', '127.0.0.1'],
      { stdio: 'ignore' },
    );
    try {
      const deadline = Date.now() + 30_000;
      while (!(await heartbeat('127.0.0.1', port)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      const s = await SidecarSession.start(testConfig(dataDir, { chromaUrl: `http://127.0.0.1:${port}` }));
      try {
        const d = await s.request(P.RememberRequest, {
          text: 'The team store lives on the shared Chroma server',
          project_id: 'team',
        });
        assert.equal(d.outcome, 'stored');
        const list = await s.request(P.ListRequest, { project_id: 'team' });
        assert.equal(list.total, 1);
        assert.ok(
          !existsSync(join(dataDir, 'chroma', 'mnemo-server.json')),
          'no embedded server was started',
        );
        const stats = await s.request(P.StatsRequest, {});
        assert.match(stats.chroma, new RegExp(`remote http://127.0.0.1:${port}`));
      } finally {
        await s.stop();
      }
    } finally {
      server.kill('SIGKILL');
      cleanupDataDir(teamDir);
      cleanupDataDir(dataDir);
    }
  });
});
