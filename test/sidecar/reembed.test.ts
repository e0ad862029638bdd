/**
 * Changing the embedding model: collections never mix models; captures wait; re-embedding migrates
 * everything, can be cancelled without a trace, and switches over only when complete.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CancelledError, EmbeddingError } from '../../sidecar/shared/errors';
import { MnemoService } from '../../sidecar/service';
import {
  TEST_MODEL,
  cleanupDataDir,
  tempDataDir,
  inProcessService,
  testModelPath,
} from '../support/sidecarSession';

const dataDir = tempDataDir();
// The same real weights published under a second model id: a different model as far as the store knows.
const models = mkdtempSync(join(tmpdir(), 'mnemo-models-'));
mkdirSync(join(models, 'Xenova'));
mkdirSync(join(models, 'Mnemo'));
symlinkSync(join(testModelPath(), TEST_MODEL), join(models, TEST_MODEL));
symlinkSync(join(testModelPath(), TEST_MODEL), join(models, 'Mnemo', 'minilm-v2-copy'));

function service(model: string, background = false): MnemoService {
  return inProcessService(dataDir, { embedding: { model, modelPath: models } }, { background });
}

after(() => cleanupDataDir(dataDir));

test('a model change queues captures, re-embedding can be cancelled, then migrates everything and switches over', async () => {
  const a = service(TEST_MODEL);
  await a.start();
  const texts = [
    'I always use vim, never suggest nano',
    'The PLC-3000 Modbus timeout is 1500 ms',
    'Backups run nightly at 01:00 UTC',
  ];
  for (const text of texts) await a.remember({ text, project_id: 'mig' });
  const before = await a.list({ project_id: 'mig' });
  await a.dispose();

  const b = service('Mnemo/minilm-v2-copy', true);
  await b.start();
  try {
    await assert.rejects(
      b.requireModel(),
      (e: unknown) => e instanceof EmbeddingError && /Re-embed Memories/.test(e.message),
    );
    const status = await b.computeStatus();
    assert.equal(status.health, 'warning');
    assert.match(status.message, /Re-embed/);
    // Keyword search and listing still work on the old collection; a capture waits in the queue.
    assert.equal((await b.search({ query: 'vim', mode: 'keyword', project_id: 'mig' })).items.length, 1);
    await b.capture({
      project_id: 'mig',
      source_type: 'chat',
      messages: [
        { role: 'user', content: 'We decided that the gateway restarts every Sunday at 02:00.', id: 'c1' },
      ],
    });
    assert.equal((await b.computeStatus()).queued, 1);

    await assert.rejects(b.reembed({}, { isCancellationRequested: true }), CancelledError);
    assert.equal(
      b.store.active?.model,
      `local:${TEST_MODEL}`,
      'a cancelled run leaves the old collection active',
    );
    assert.equal((await b.list({ project_id: 'mig' })).total, before.total);

    const r = await b.reembed({});
    assert.equal(r.migrated, before.total);
    assert.equal(r.model, 'local:Mnemo/minilm-v2-copy');
    assert.equal(b.store.active?.model, 'local:Mnemo/minilm-v2-copy');
    const after = await b.list({ project_id: 'mig' });
    assert.deepEqual(
      after.items.map((m) => m.id).sort(),
      before.items.map((m) => m.id).sort(),
      'every memory migrated, ids kept',
    );
    assert.ok(after.items.every((m) => m.embedding_model === 'local:Mnemo/minilm-v2-copy'));
    assert.equal(await b.flush(60_000), 0, 'the queued capture drains after the switch');
    const recall = await b.recall({ query: 'which editor should you use?', project_ids: ['mig'] });
    assert.equal(recall.items[0]?.memory.text, 'I always use vim, never suggest nano');
  } finally {
    await b.dispose();
  }
});

test('after a re-embed, a deleted memory and an edited text leave the older model’s collection too', async () => {
  const dir = tempDataDir();
  const svc = (model: string) => inProcessService(dir, { embedding: { model, modelPath: models } });
  const a = svc(TEST_MODEL);
  await a.start();
  const gone = await a.remember({
    text: 'The zqvoldcopy9 flag guards the billing export',
    project_id: 'kept',
  });
  const edited = await a.remember({
    text: 'The staging proxy is zqvoldtext7 on port 6432',
    project_id: 'kept',
  });
  await a.remember({ text: 'Backups run nightly at 01:00 UTC', project_id: 'kept' });
  await a.dispose();

  const b = svc('Mnemo/minilm-v2-copy');
  await b.start();
  try {
    const r = await b.reembed({});
    assert.ok(r.previous, 'the older collection is kept');
    await b.delete([gone.id!]);
    await b.update({ id: edited.id!, patch: { text: 'The staging proxy listens on port 7777' } });
    // Read the kept collection straight from Chroma: neither the deleted memory nor the old text is there.
    const kept = await b.store.onCollection(
      { name: r.previous!, model: `local:${TEST_MODEL}`, dim: r.dim },
      'read the kept collection',
      (col) => col.get({ include: ['documents'] }),
    );
    assert.ok(!kept.ids.includes(gone.id!), 'the deleted memory left the kept collection');
    assert.ok(
      !kept.documents.some((d) => d?.includes('zqvoldtext7')),
      'the replaced text left the kept collection',
    );
    assert.equal(kept.ids.length, 1, 'the untouched memory stays in the kept collection');
    assert.equal((await b.list({ project_id: 'kept' })).total, 2);
  } finally {
    await b.dispose();
    cleanupDataDir(dir);
  }
});
