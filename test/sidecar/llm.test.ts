/**
 * LLM extraction inside the real sidecar, against a real local HTTP server speaking the chat-completions
 * protocol: the acceptance conversations 1 and 2 of docs/design.md, and a dead LLM that leaves the rules in charge.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { completion, sendJson, startFakeLlm, type FakeLlmServer } from '../support/fakeLlm';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig } from '../support/sidecarSession';

const SEED_TEST_1 = [
  { id: 't1', role: 'user', content: '我习惯用vim，不要用nano。' },
  { id: 't2', role: 'user', content: 'Our services use Python 3.11.' },
  { id: 't3', role: 'user', content: 'Every change must follow PEP 8, see docs/style.md.' },
];

describe('LLM extraction in the sidecar', () => {
  const dataDir = tempDataDir();
  let llm: FakeLlmServer;
  let s: SidecarSession;
  before(async () => {
    llm = await startFakeLlm();
    llm.handle((_req, res) =>
      sendJson(
        res,
        200,
        completion(
          JSON.stringify({
            persona: ['我习惯用vim，不要用nano'],
            episodic: [],
            instruction: ['Our services use Python 3.11', 'Every change must follow PEP 8'],
          }),
        ),
      ),
    );
    const cfg = testConfig(dataDir) as P.InitializationOptions;
    cfg.llm = {
      provider: 'openai-compatible',
      baseUrl: llm.baseUrl,
      model: 'glm-4-flash',
      apiKey: 'sk-test-not-a-real-key-000000000000',
    };
    s = await SidecarSession.start(cfg);
  });
  after(async () => {
    await s?.stop();
    await llm?.close();
    cleanupDataDir(dataDir);
  });

  test('seed test 1: one persona and two instructions; the request follows the seed', async () => {
    const report = await s.request(P.IngestRequest, {
      project_id: 'seed',
      source_type: 'chat',
      messages: SEED_TEST_1,
    });
    const kept = report.decisions.filter((d) => d.outcome === 'stored' || d.outcome === 'pending');
    assert.equal(kept.filter((d) => d.category === 'persona').length, 1, JSON.stringify(kept));
    assert.equal(kept.filter((d) => d.category === 'instruction').length, 2, JSON.stringify(kept));
    assert.ok(
      kept.some((d) => /llm-agrees/.test(d.reason)),
      'rules and LLM agreeing is visible in the reason',
    );
    const req = llm.seen.at(-1)!;
    assert.equal(req.body.temperature, 0.1);
    assert.equal(req.body.max_tokens, 800);
    assert.match(String(req.body.messages?.[0]?.content), /persona/);
  });

  test('seed test 2: a second run stores nothing, and the known memories are injected', async () => {
    const report = await s.request(P.IngestRequest, {
      project_id: 'seed',
      source_type: 'chat',
      messages: SEED_TEST_1,
    });
    assert.equal(report.stored + report.pending, 0, JSON.stringify(report.decisions));
    const req = llm.seen.at(-1)!;
    assert.match(JSON.stringify(req.body.messages), /vim/, 'known memories are in the prompt');
  });

  test('a dead LLM: the status says so in one sentence and the rules still learn', async () => {
    llm.handle((_req, res) => sendJson(res, 500, { error: { message: 'boom' } }));
    const report = await s.request(P.IngestRequest, {
      project_id: 'seed',
      source_type: 'chat',
      messages: [
        {
          id: 'd1',
          role: 'user',
          content: 'We decided to restart the Modbus gateway on port 502 after every firmware upgrade.',
        },
        { id: 'd2', role: 'user', content: 'We set the historian retention to 400 days.' },
      ],
    });
    assert.ok(report.stored + report.pending >= 1, JSON.stringify(report));
    const warn = await s.waitFor('an LLM warning', () =>
      s.statuses.find((x) => x.health === 'warning' && /LLM|language model/i.test(x.message)),
    );
    assert.match(warn.message, /rules alone/);
  });
});
