/**
 * Lifecycle through the real service, store and model, with an injected clock: decay over simulated months,
 * restarts, the floor; confirm and notices; time zones.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { MnemoService } from '../../sidecar/service';
import { REPO, cleanupDataDir, tempDataDir, inProcessService } from '../support/sidecarSession';

function service(dataDir: string, clock: () => Date, user = 'tester@ci'): MnemoService {
  return inProcessService(dataDir, { user }, { clock });
}

describe('lifecycle', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanupDataDir));

  test('decay over 1, 2 and 13 simulated months, once per month across restarts, archived at the floor', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    let now = new Date('2026-01-10T08:00:00.000Z');
    const clock = () => now;
    let svc = service(dataDir, clock);
    await svc.start();
    const kept = await svc.remember({
      text: 'The gateway restarts at 02:00 UTC every Sunday',
      project_id: 'decay',
      pending: true,
    });
    const low = await svc.remember({
      text: 'Vendor hotline answers within four hours',
      project_id: 'decay',
      pending: true,
    });
    await svc.update({ id: low.id!, patch: { confidence_score: 0.105 } });
    const start = (await svc.get(kept.id!)).confidence_score;

    now = new Date('2026-02-10T08:00:00.000Z');
    await svc.decay({ apply: true });
    assert.ok(Math.abs((await svc.get(kept.id!)).confidence_score - start * 0.95) < 1e-3, '1 month');
    const archived = await svc.get(low.id!);
    assert.equal(archived.status, 'archived', 'under the floor: archived');
    assert.ok(archived.confidence_score < 0.1);

    // Restart: the same month is not applied twice.
    await svc.dispose();
    svc = service(dataDir, clock);
    await svc.start();
    await svc.decay({ apply: true });
    assert.ok(
      Math.abs((await svc.get(kept.id!)).confidence_score - start * 0.95) < 1e-3,
      'no double application',
    );

    now = new Date('2026-03-10T08:00:00.000Z');
    await svc.decay({ apply: true });
    assert.ok(Math.abs((await svc.get(kept.id!)).confidence_score - start * 0.95 ** 2) < 1e-3, '2 months');

    // Months offline: catch-up applies 0.95^n; the preview changes nothing.
    now = new Date('2027-02-10T08:00:00.000Z');
    const preview = await svc.decay({});
    assert.equal(preview.steps.find((st) => st.id === kept.id)?.months, 11);
    assert.ok(
      Math.abs((await svc.get(kept.id!)).confidence_score - start * 0.95 ** 2) < 1e-3,
      'preview writes nothing',
    );
    await svc.decay({ apply: true });
    assert.ok(Math.abs((await svc.get(kept.id!)).confidence_score - start * 0.95 ** 13) < 1e-3, '13 months');
    const audit = svc.auditList({ memory_id: kept.id! });
    assert.equal(audit.filter((e) => e.action === 'decay').length, 3);
    assert.ok(svc.auditList({ memory_id: low.id! }).some((e) => e.action === 'archive'));
    await svc.dispose();
  });

  test('confirm records the confirmer; mark wrong by someone else notifies them', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const clock = () => new Date();
    const alice = service(dataDir, clock, 'alice@ws1');
    await alice.start();
    const d = await alice.remember({
      text: 'PLC-3000 needs the Windows Server 2012 driver',
      project_id: 'team',
      pending: true,
    });
    const confirmed = await alice.confirm({ id: d.id! });
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.confirmed_by, 'alice@ws1');
    assert.ok(confirmed.confidence_score >= 0.8);
    await alice.dispose();

    const bob = service(dataDir, clock, 'bob@ws2');
    await bob.start();
    await bob.markWrong({ id: d.id! });
    assert.deepEqual(await bob.notices({}), [], 'bob is not notified of his own action');
    await bob.dispose();

    const alice2 = service(dataDir, clock, 'alice@ws1');
    await alice2.start();
    const notices = await alice2.notices({ project_ids: ['team'] });
    assert.equal(notices.length, 1);
    assert.equal(notices[0].by, 'bob@ws2');
    assert.equal(await alice2.ackNotices({ ids: [d.id!] }), 1);
    assert.deepEqual(await alice2.notices({}), [], 'seen once, not again');
    await alice2.dispose();
  });

  test('stored times and "last 7 days" counts are identical in Shanghai, Berlin and Los Angeles', () => {
    const script = join(REPO, 'test', 'support', 'tzProbe.ts');
    const outputs = ['Asia/Shanghai', 'Europe/Berlin', 'America/Los_Angeles'].map((tz) => {
      const dataDir = tempDataDir();
      dirs.push(dataDir);
      const out = execFileSync(process.execPath, ['--import', 'tsx', script, dataDir], {
        env: { ...process.env, TZ: tz },
        encoding: 'utf8',
        timeout: 180_000,
      });
      const lines = out.trim().split('\n');
      return {
        tz,
        result: JSON.parse(lines[lines.length - 1]) as { created: string[]; new_7d: number; offset: number },
      };
    });
    assert.notEqual(
      outputs[0].result.offset,
      outputs[2].result.offset,
      'the probes really ran in different time zones',
    );
    for (const o of outputs.slice(1)) {
      assert.deepEqual(o.result.created, outputs[0].result.created, `${o.tz} stored different times`);
      assert.equal(o.result.new_7d, outputs[0].result.new_7d, `${o.tz} counted a different "last 7 days"`);
    }
    assert.ok(outputs[0].result.created.every((t) => t.endsWith('Z')));
    assert.equal(outputs[0].result.new_7d, 2);
  });
});
