import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeSession, InvalidSessionError } from '../../sidecar/pipeline/index';
import type { SessionInput } from '../../sidecar/pipeline/types';

const clock = (): Date => new Date('2026-05-15T12:30:00.000Z');

describe('analyzeSession', () => {
  it('runs the first acceptance conversation of docs/design.md end to end', async () => {
    const input: SessionInput = {
      project_id: 'demo',
      source_type: 'chat',
      source_ref: ['file:chat-export.json'],
      messages: [
        { role: 'user', content: '我习惯用vim编辑器，不要给我推荐nano' },
        { role: 'user', content: '我的项目统一用Python 3.11' },
        { role: 'user', content: '代码风格遵循PEP8，docstring用Google风格' },
        { role: 'assistant', content: '好的，我记住了。' },
      ],
    };
    const r = await analyzeSession(input, { clock });
    assert.equal(r.skipped, undefined);
    assert.deepEqual(
      r.candidates.map((c) => [c.category, c.text]),
      [
        ['persona', '我习惯用vim编辑器，不要给我推荐nano'],
        ['instruction', '我的项目统一用Python 3.11'],
        ['instruction', '代码风格遵循PEP8，docstring用Google风格'],
      ],
    );
    assert.ok(r.candidates.every((c) => c.source_ref.includes('file:chat-export.json')));
    assert.ok(r.candidates.every((c) => c.confidence >= 0.5 && c.confidence <= 0.95));
    assert.deepEqual(
      r.dropped.map((d) => d.message_id),
      ['m3'],
      'the assistant ack is dropped',
    );
  });

  it('redacts secrets before the rules see them: nothing secret reaches candidates or explanations', async () => {
    const token = 'ghp_' + 'Q7r8S9t0U1'.repeat(4);
    const r = await analyzeSession(
      {
        project_id: 'demo',
        source_type: 'terminal',
        messages: [
          { role: 'user', content: `export GH_TOKEN=${token}` },
          { role: 'user', content: `网关密码是Sc4da#2024，改完重启 gateway；token ${token}` },
          { role: 'user', content: '有问题打张工电话13812345678' },
        ],
      },
      { clock },
    );
    const everything = JSON.stringify(r);
    assert.ok(!everything.includes(token));
    assert.ok(!everything.includes('Sc4da#2024'));
    assert.ok(!everything.includes('13812345678'));
    // The token assigned to GH_TOKEN is named by its most specific kind.
    assert.deepEqual(r.redactions, [
      { type: 'github-token', count: 2 },
      { type: 'password', count: 1 },
      { type: 'cn-mobile', count: 1 },
    ]);
  });

  it('skips a session of greetings with a reason', async () => {
    const r = await analyzeSession({
      project_id: 'p',
      source_type: 'chat',
      messages: [
        { role: 'user', content: '你好' },
        { role: 'assistant', content: '你好！' },
      ],
    });
    assert.match(r.skipped ?? '', /too short/);
    assert.deepEqual(r.candidates, []);
  });

  it('honours the review threshold option', async () => {
    const input: SessionInput = {
      project_id: 'p',
      source_type: 'chat',
      messages: [
        { role: 'user', content: 'PLC-3000 通讯超时阈值设为 1500ms' },
        { role: 'user', content: 'port 502 is Modbus' },
      ],
    };
    const strict = await analyzeSession(input, { clock, reviewScoreThreshold: 10 });
    assert.ok(strict.candidates.every((c) => c.pending));
    const lax = await analyzeSession(input, { clock, reviewScoreThreshold: 0 });
    assert.ok(lax.candidates.every((c) => !c.pending));
  });

  it('rejects malformed input with InvalidSessionError', async () => {
    await assert.rejects(
      analyzeSession({ project_id: 'p', source_type: 'chat', messages: {} as never }),
      InvalidSessionError,
    );
  });
});
