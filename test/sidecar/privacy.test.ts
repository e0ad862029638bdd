/**
 * Secrets never reach disk: a corpus of 80 secrets of every kind goes through capture, ingest and
 * remember in the real sidecar; afterwards no file in the data folder (the queue, the audit log, the logs,
 * Chroma's database) contains any of them, and nothing recalled shows one.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { REPO, SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

interface Secret {
  kind: string;
  secret: string;
  text: string;
}
const corpus = readFileSync(join(REPO, 'test/fixtures/secrets/corpus.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Secret);

function* filesUnder(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) yield* filesUnder(p);
    else if (st.isFile()) yield p;
  }
}

const dataDir = tempDataDir();
const metaDir = tempDataDir();
after(() => {
  cleanupDataDir(dataDir);
  cleanupDataDir(metaDir);
});

function assertNoSecretOnDisk(dir: string, secrets: ReadonlyArray<{ kind: string; secret: string }>): void {
  const files = [...filesUnder(dir)].filter((f) => !f.includes(`${join('models', '')}`));
  assert.ok(
    files.some((f) => f.includes('queue')) &&
      files.some((f) => f.includes('audit')) &&
      files.some((f) => f.endsWith('.sqlite3')),
  );
  for (const f of files) {
    const bytes = readFileSync(f);
    const text = bytes.toString('utf8');
    const latin = bytes.toString('latin1');
    for (const c of secrets)
      assert.ok(
        !text.includes(c.secret) && !latin.includes(c.secret),
        `${c.kind} "${c.secret.slice(0, 12)}…" found in ${f}`,
      );
  }
}

test('no secret of the corpus reaches the queue, the audit log, the logs or the Chroma store', async () => {
  assert.ok(corpus.length >= 50, `corpus of ${corpus.length}`);
  const s = await SidecarSession.start(testConfig(dataDir));
  try {
    // Decisions that the rules keep, each carrying a secret.
    const messages = corpus.map((c, i) => ({
      id: `s${i}`,
      role: 'user',
      content: `We decided to configure it like this: ${c.text}`,
    }));
    for (let i = 0; i < messages.length; i += 10) {
      await s.request(P.CaptureSessionRequest, {
        project_id: 'secrets',
        source_type: 'chat',
        messages: messages.slice(i, i + 10),
      });
    }
    await s.request(P.IngestRequest, {
      project_id: 'secrets',
      source_type: 'terminal',
      messages: messages.slice(0, 20),
    });
    for (const c of corpus.slice(0, 10))
      await s.request(P.RememberRequest, { text: `Remember: ${c.text}`, project_id: 'secrets' });
    const flushed = await s.request(P.FlushQueueRequest, { timeout_ms: 120_000 });
    assert.equal(flushed.remaining, 0);
    const stored = await s.request(P.ListRequest, { project_id: 'secrets', limit: 10_000 });
    assert.ok(
      stored.total >= 20,
      `memories were stored (${stored.total}), so the check below means something`,
    );
    assert.ok(
      stored.items.some((m) => /\[REDACTED:[a-z0-9-]+\]/.test(m.text)),
      'placeholders stand where the secrets were',
    );
    const recalled = await s.request(P.RecallRequest, {
      query: 'access key token password',
      project_ids: ['secrets'],
      top_k: 20,
      min_confidence: 0,
      min_similarity: 0,
    });
    for (const c of corpus) assert.ok(!recalled.block.includes(c.secret), `recall shows a ${c.kind}`);
  } finally {
    await s.stop();
  }
  const files = [...filesUnder(dataDir)].filter((f) => !f.includes(`${join('models', '')}`));
  assert.ok(
    files.some((f) => f.includes('queue')) &&
      files.some((f) => f.includes('audit')) &&
      files.some((f) => f.endsWith('.sqlite3')),
  );
  for (const f of files) {
    const bytes = readFileSync(f);
    const text = bytes.toString('utf8');
    const latin = bytes.toString('latin1');
    for (const c of corpus) {
      assert.ok(
        !text.includes(c.secret) && !latin.includes(c.secret),
        `${c.kind} "${c.secret.slice(0, 12)}…" found in ${f}`,
      );
    }
  }
});

// The audit: source_ref (URL passwords too), message ids, added_by, session_id and speaker names were
// stored as given. Every free-text field of a session is redacted before it is queued.
test('secrets in source_ref, message ids, speaker names, added_by and session_id never reach disk', async () => {
  const pick = (kind: string) => corpus.find((c) => c.kind === kind)!.secret;
  const urlPassword = 'Nx7!deployPw2026';
  const secrets = [
    { kind: 'url-password in source_ref', secret: urlPassword },
    { kind: 'github-token as a message id', secret: pick('github-token') },
    { kind: 'stripe-key as a speaker name', secret: pick('stripe-key') },
    { kind: 'huggingface-token as session_id', secret: pick('huggingface-token') },
    { kind: 'email as added_by', secret: 'wang.li@example.com' },
    { kind: 'openai-key in a remembered source_ref', secret: pick('openai-key') },
  ];
  const session = {
    project_id: 'meta',
    source_type: 'chat' as const,
    session_id: `run-${pick('huggingface-token')}`,
    added_by: 'wang.li@example.com',
    source_ref: [`url:https://deploy:${urlPassword}@nexus.example.com/repository/releases`],
    messages: [
      {
        id: pick('github-token'),
        name: pick('stripe-key'),
        role: 'user',
        content: 'We decided to set the billing API timeout to 1500 ms for the upstream.',
      },
      {
        id: 'm2',
        role: 'assistant',
        content: 'Noted: the billing API timeout is 1500 ms and retries are capped at 3.',
      },
      {
        id: 'm3',
        role: 'user',
        content: 'Also we configure the Postgres pool size to 20 connections on the billing host.',
      },
    ],
  };
  const s = await SidecarSession.start(testConfig(metaDir));
  try {
    await s.request(P.CaptureSessionRequest, session);
    await s.request(P.IngestRequest, { ...session, project_id: 'meta-ingest' });
    await s.request(P.RememberRequest, {
      text: 'The release job signs with the team key.',
      project_id: 'meta',
      source_ref: [`file:/tmp/${pick('openai-key')}.txt`],
      added_by: 'wang.li@example.com',
    });
    assert.equal((await s.request(P.FlushQueueRequest, { timeout_ms: 120_000 })).remaining, 0);
    const stored = [
      ...(await s.request(P.ListRequest, { project_id: 'meta', limit: 100 })).items,
      ...(await s.request(P.ListRequest, { project_id: 'meta-ingest', limit: 100 })).items,
    ];
    assert.ok(stored.length >= 3, `memories were stored (${stored.length})`);
    assert.ok(
      stored.some((m) => m.source_ref.some((r) => r.includes('[REDACTED:url-password]'))),
      'the URL keeps its host, the password is a placeholder',
    );
  } finally {
    await s.stop();
  }
  assertNoSecretOnDisk(metaDir, secrets);
});
