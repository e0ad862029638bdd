/**
 * A changed fact replaces the old one (issue 16, item 1): "timeout 1500 ms" then "timeout 3000 ms" are
 * near-duplicate texts (cosine ~0.02) but different facts. The newer is stored, the older is superseded
 * (kept, linked, never recalled); a true paraphrase still refreshes the memory it repeats.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MnemoService } from '../../sidecar/service';
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';

describe('fact updates', () => {
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

  test('a changed value supersedes the old memory; recall answers with the new value', async () => {
    const old = await svc.remember({
      text: 'We set the payment gateway timeout to 1500 ms.',
      project_id: 'pay',
    });
    const fresh = await svc.remember({
      text: 'We set the payment gateway timeout to 3000 ms.',
      project_id: 'pay',
    });
    assert.equal(fresh.outcome, 'stored', fresh.reason);
    assert.notEqual(fresh.id, old.id);
    assert.match(fresh.reason, /supersedes/);
    const before = await svc.get(old.id!);
    assert.equal(before.status, 'superseded');
    assert.equal(before.superseded_by, fresh.id);
    const r = await svc.recall({
      query: 'what is the payment gateway timeout?',
      project_ids: ['pay'],
      top_k: 5,
      mark_used: false,
    });
    const texts = r.items.filter((i) => i.kind === 'memory').map((i) => i.memory.text);
    assert.ok(
      texts.some((t) => t.includes('3000 ms')),
      texts.join(' | '),
    );
    assert.ok(
      !texts.some((t) => t.includes('1500 ms')),
      `the superseded value is not recalled: ${texts.join(' | ')}`,
    );
    assert.ok(svc.auditList({ memory_id: old.id }).some((e) => /superseded by/.test(e.note ?? '')));
  });

  test('a paraphrase of the same fact still refreshes the memory it repeats', async () => {
    const a = await svc.remember({
      text: 'I always use vim, never suggest nano.',
      project_id: 'ed',
      category: 'persona',
    });
    const b = await svc.remember({
      text: 'I always use vim and never suggest nano.',
      project_id: 'ed',
      category: 'persona',
    });
    assert.equal(b.outcome, 'refreshed', b.reason);
    assert.equal(b.id, a.id);
  });
});
