import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import {
  cnIdCheckChar,
  isValidCnId,
  luhnValid,
  redactText,
  redactTextSync,
} from '../../sidecar/pipeline/redact';

const FIXTURES = join(__dirname, '..', 'fixtures', 'secrets');
interface Secret {
  kind: string;
  text: string;
  secret: string;
}
const corpus: Secret[] = readFileSync(join(FIXTURES, 'corpus.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Secret);
const lookalikes: Array<{ kind: string; text: string }> = readFileSync(
  join(FIXTURES, 'lookalikes.jsonl'),
  'utf8',
)
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { kind: string; text: string });

/** Any 10-character window of the secret still visible counts as a leak. */
function leaks(out: string, secret: string): boolean {
  const s = secret.replace(/\s+/g, ' ');
  if (out.includes(s)) return true;
  const core = s.replace(/[\s-]/g, '');
  const flat = out.replace(/[\s-]/g, '');
  for (let i = 0; i + 10 <= core.length; i++) if (flat.includes(core.slice(i, i + 10))) return true;
  return false;
}

describe('redact: secret corpus', () => {
  it('has at least 60 secrets covering every required kind', () => {
    assert.ok(corpus.length >= 60, `${corpus.length} secrets`);
    const kinds = new Set(corpus.map((c) => c.kind));
    for (const k of [
      'aws-access-key-id',
      'aws-secret-access-key',
      'github-token',
      'openai-key',
      'glm-api-key',
      'slack-token',
      'slack-webhook',
      'google-api-key',
      'jwt',
      'private-key',
      'url-password',
      'password',
      'secret-assignment',
      'cn-id-number',
      'cn-mobile',
      'bank-card',
      'email',
      'stripe-key',
      'huggingface-token',
      'azure-key',
      'basic-auth',
    ]) {
      assert.ok(kinds.has(k), `corpus lacks ${k}`);
    }
  });

  it('no secret survives redaction, and each is reported under its kind', async () => {
    const failures: string[] = [];
    for (const c of corpus) {
      const r = await redactText(c.text);
      if (leaks(r.text, c.secret)) failures.push(`${c.kind} leaked: ${r.text}`);
      else if (!r.text.includes(`[REDACTED:${c.kind}]`))
        failures.push(`${c.kind} labelled otherwise: ${r.text}`);
    }
    assert.deepEqual(failures, []);
  });

  it('every look-alike (durations, ports, versions, dates, IPs, hashes, counts, placeholders) survives untouched', async () => {
    assert.ok(lookalikes.length >= 30);
    const changed: string[] = [];
    for (const l of lookalikes) {
      const r = await redactText(l.text);
      if (r.text !== l.text) changed.push(`${l.kind}: ${r.text}`);
    }
    assert.deepEqual(changed, []);
  });
});

describe('redact: behaviour', () => {
  it('keeps user and host of a URL and hides only its password', async () => {
    const r = await redactText('DATABASE_URL=postgres://app:Sc4da2024x@db.internal:5432/scada');
    assert.equal(r.text, 'DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/scada');
  });

  it('hides the value of env and config assignments but keeps the name (a docker-compose file, docs/design.md)', async () => {
    const r = await redactText('HERMES_MODEL_API_KEY: sk-xxxxxxxxxxxxxx\nHERMES_MODEL_NAME: gpt-4o-mini');
    assert.equal(
      r.text,
      'HERMES_MODEL_API_KEY: [REDACTED:secret-assignment]\nHERMES_MODEL_NAME: gpt-4o-mini',
    );
  });

  it('redacts a whole private key block, even when the END line was cut off', async () => {
    const key =
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7yn3bRHQ5FHMQ\nU2xnX6f7n0lEasG2L1Q6PfqJp2W8N\n';
    const r = await redactText(`key:\n${key}`);
    assert.equal(r.text, 'key:\n[REDACTED:private-key]\n');
    const tail =
      'U2xnX6f7n0lEasG2L1Q6PfqJp2W8N\nMIIEowIBAAKCAQEA7yn3bRHQ5FHMQ\n-----END RSA PRIVATE KEY-----\nafter';
    assert.equal((await redactText(tail)).text, '[REDACTED:private-key]\nafter');
  });

  it('only redacts ID numbers with a valid GB 11643 checksum and cards that pass Luhn', async () => {
    assert.equal(cnIdCheckChar('11010519491231002'), 'X');
    assert.ok(isValidCnId('11010519491231002X'));
    assert.ok(!isValidCnId('110105194912310021'));
    assert.equal((await redactText('身份证 110105194912310021')).text, '身份证 110105194912310021');
    assert.ok(luhnValid('4111111111111111'));
    assert.equal((await redactText('card 4111 1111 1111 1111')).text, 'card [REDACTED:bank-card]');
    assert.equal((await redactText('card 4111 1111 1111 1112')).text, 'card 4111 1111 1111 1112');
  });

  it('reports counts per kind and never the secret itself', async () => {
    const r = await redactText('打 13812345678 或 +86 15900001111，邮件 wang.li@example.com');
    assert.deepEqual(r.findings, [
      { type: 'cn-mobile', count: 2 },
      { type: 'email', count: 1 },
    ]);
    assert.ok(!JSON.stringify(r.findings).includes('138'));
  });

  it('is idempotent: already-redacted text is left alone', async () => {
    const once = await redactText('password=Hunter2!x9 and token ghp_' + 'A1b2C3d4E5'.repeat(4));
    const twice = await redactText(once.text);
    assert.equal(twice.text, once.text);
    assert.deepEqual(twice.findings, []);
  });

  it('the sync fast path agrees with the async path on the corpus', () => {
    for (const c of corpus) assert.ok(!leaks(redactTextSync(c.text).text, c.secret), c.kind);
  });

  it('leaves no performance marks behind (secretlint profiler would leak ~6 KB per message in a long-running sidecar)', async () => {
    for (let i = 0; i < 300; i++) await redactText(`timeout ${i}ms on port 502`);
    await new Promise((r) => setImmediate(r));
    assert.equal(performance.getEntriesByType('mark').length, 0);
  });

  it('handles 1 MB adversarial inputs in time linear in their size (no catastrophic backtracking)', async () => {
    const MB = 1 << 20;
    // Each input is built from a unit repeated: at 1 MB and at 1/8 of that. Linear work takes ~8x as long
    // on the larger one, quadratic ~64x; the ratio is compared, not seconds, so a slow or loaded machine
    // neither fails it nor hides a quadratic pattern (min of 3 runs each, against timer noise).
    const units: [string, number][] = [
      ['a', MB],
      ['1', MB],
      ['a@', MB / 2],
      ['password=', MB / 9],
      ['x:', MB / 2],
      ['https://u:', MB / 10],
      ['-----BEGIN RSA PRIVATE KEY-----\n', MB / 32],
      ['1380013800 ', MB / 11],
      ['超时阈值设为 1500ms，端口 502。' + 'sk-' + 'a1'.repeat(30) + ' ', MB / 100],
    ];
    const time = async (text: string): Promise<number> => {
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const r = await redactText(text);
        best = Math.min(best, performance.now() - t0);
        assert.ok(r.text.length > 0);
      }
      return best;
    };
    for (const [unit, n] of units) {
      const small = await time(unit.repeat(Math.ceil(n / 8)));
      const large = await time(unit.repeat(n));
      // 2 ms of slack: the small input can run in a few ms, where the timer's resolution dominates.
      const ratio = large / Math.max(small, 2);
      assert.ok(
        ratio < 24,
        `${JSON.stringify(unit.slice(0, 12))}: 1 MB took ${large.toFixed(0)} ms, 1/8 ${small.toFixed(0)} ms (${ratio.toFixed(1)}x)`,
      );
    }
    // Two more shapes that are not a repeated unit.
    for (const text of ['eyJ' + 'A'.repeat(MB), 'x:'.repeat(MB / 2) + '@']) {
      const small = await time(text.slice(0, text.length / 8));
      const large = await time(text);
      assert.ok(
        large / Math.max(small, 2) < 24,
        `${text.slice(0, 8)}…: ${large.toFixed(0)} ms vs ${small.toFixed(0)} ms`,
      );
    }
  });
});
