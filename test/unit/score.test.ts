import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyRules } from '../../sidecar/pipeline/rules';
import {
  confidenceFromScore,
  defaultScorer,
  scoreCandidates,
  type Scorer,
} from '../../sidecar/pipeline/score';
import type { Candidate, NormalizedMessage, Role } from '../../sidecar/pipeline/types';

let n = 0;
function scored(text: string, role: Role = 'user', threshold?: number): Candidate {
  const m: NormalizedMessage = { id: `s${n++}`, role, content: text, timestamp: '2026-05-15T12:00:00.000Z' };
  const { candidates } = applyRules([m], 'chat');
  assert.equal(candidates.length, 1, `"${text}" was not kept`);
  return scoreCandidates(candidates, threshold === undefined ? {} : { reviewThreshold: threshold })[0]!;
}

describe('score', () => {
  it('maps score to initial confidence: 0.5 + score/20, capped at 0.95', () => {
    assert.deepEqual([0, 2, 4, 6, 8, 9, 10].map(confidenceFromScore), [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.95]);
  });

  it('a specific, actionable setting outranks a bare number and a vague event', () => {
    const setting = scored('PLC-3000 通讯超时阈值设为 1500ms');
    const bare = scored('port 502');
    const event = scored('上周五讨论了供应链风险点');
    assert.ok(setting.score > bare.score, `${setting.score} vs ${bare.score}`);
    assert.ok(setting.score > event.score, `${setting.score} vs ${event.score}`);
    assert.ok(setting.score >= 8);
    assert.equal(setting.confidence, confidenceFromScore(setting.score));
    assert.equal(setting.pending, false);
  });

  it('a referenced document raises the score', () => {
    const withRef = scored('依据《PLC-3000 用户手册》第12页，把站号设为 3');
    const without = scored('把站号设为 3');
    assert.ok(withRef.score > without.score);
  });

  it('user statements outrank the same kind of statement from the assistant', () => {
    const user = scored('排查后确认根因是站号配置错误');
    const assistant = scored('排查后确认根因是站号配置错误', 'assistant');
    assert.ok(user.score > assistant.score);
  });

  it('scores stay within 0..10 and are explained', () => {
    for (const t of [
      '我是后端工程师',
      '完成博客主题迁移',
      'PLC-3000 通讯中断时，Wireshark 显示 TCP RST 包集中出现在端口 502，确认为 Modbus-TCP 协议栈异常。',
    ]) {
      const c = scored(t);
      assert.ok(c.score >= 0 && c.score <= 10);
      assert.ok(defaultScorer.score(c).why.length > 0);
    }
  });

  it('review gate: scores under the threshold go to review with the reason', () => {
    const c = scored('完成博客主题迁移', 'user', 9);
    assert.equal(c.pending, true);
    assert.match(c.pending_reason ?? '', /^score [\d.]+ < 9$/);
    const ok = scored('完成博客主题迁移', 'user', 1);
    assert.equal(ok.pending, false);
    assert.equal(ok.pending_reason, undefined);
  });

  it('review gate: explicit requests are always reviewed, even with a high score', () => {
    const c = scored('请记录：PLC-3000 通讯超时阈值设为 1500ms');
    assert.ok(c.score >= 4);
    assert.equal(c.pending, true);
    assert.match(c.pending_reason ?? '', /explicit request \(请记录\)/);
  });

  it('review gate: an unverified hard compatibility claim waits for a person (memory pollution, docs/design.md)', () => {
    const c = scored('PLC-3000 必须用 Windows Server 2012 驱动');
    assert.equal(c.pending, true);
    assert.match(c.pending_reason ?? '', /unverified/);
    const verified = scored('实测确认 PLC-3000 必须用 Windows Server 2012 驱动');
    assert.equal(verified.pending, false);
  });

  it('the scorer is pluggable', () => {
    const constant: Scorer = { name: 'const', score: () => ({ score: 7, why: ['fixed'] }) };
    const m: NormalizedMessage = {
      id: 'x',
      role: 'user',
      content: 'port 502',
      timestamp: '2026-05-15T12:00:00.000Z',
    };
    const [c] = scoreCandidates(applyRules([m], 'chat').candidates, { scorer: constant });
    assert.equal(c!.score, 7);
    assert.equal(c!.confidence, 0.85);
    assert.equal(c!.pending, false);
  });
});
