/**
 * The extract stage (docs/design.md, Extraction with an LLM) against a real chat-completions server on 127.0.0.1: what is sent
 * (prompt, temperature 0.1, max_tokens 800, known memories, nothing secret), how answers are read,
 * failures as one sentence; the merge with the rule stage; the token counter.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { LlmUsageCounter } from '../../sidecar/llm/usage';
import { OpenAiCompatibleProvider } from '../../sidecar/llm/index';
import { analyzeSession } from '../../sidecar/pipeline/index';
import { normalizeSession } from '../../sidecar/pipeline/normalize';
import { redactText } from '../../sidecar/pipeline/redact';
import {
  EXTRACTION_SYSTEM_PROMPT,
  KNOWN_HEADER,
  extractWithLlm,
  extractionMessages,
  mergeRuleAndLlm,
  selectKnown,
  parseExtraction,
  type ExtractResult,
} from '../../sidecar/pipeline/extract';
import type { Candidate, NormalizedMessage, SessionInput } from '../../sidecar/pipeline/types';
import {
  completion,
  deadPort,
  isOneSentence,
  sendJson,
  startFakeLlm,
  type FakeLlmServer,
} from '../support/fakeLlm';

const SECRET = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

/** Acceptance conversation 1 of docs/design.md, plus a line with a secret that must never reach the model. */
const SEED_SESSION: SessionInput = {
  project_id: 'proj-py',
  source_type: 'chat',
  messages: [
    { role: 'user', content: '我习惯用vim编辑器，不要给我推荐nano' },
    { role: 'user', content: '我的项目统一用Python 3.11' },
    { role: 'user', content: '代码风格遵循PEP8，docstring用Google风格' },
    { role: 'user', content: `CI 里用的 token 是 ${SECRET}，别外传` },
    { role: 'assistant', content: '好的，我会记住这些偏好。' },
  ],
};

/** What GLM-4-Flash answers for test 1 (the expected output of docs/design.md's first acceptance conversation). */
const SEED_ANSWER = JSON.stringify({
  persona: ['用户习惯使用vim编辑器，不要推荐nano'],
  episodic: [],
  instruction: ['项目统一使用Python 3.11', '代码风格遵循PEP8，docstring用Google风格'],
});

const KNOWN = ['用户偏好暗色主题', '部署前先运行 hugo --minify 测试'];

/** Normalize + redact, as the pipeline does before extraction. */
async function pipelineMessages(s: SessionInput): Promise<NormalizedMessage[]> {
  const { messages } = normalizeSession(s, () => new Date('2026-05-15T12:00:00Z'));
  const out: NormalizedMessage[] = [];
  for (const m of messages) out.push({ ...m, content: (await redactText(m.content)).text });
  return out;
}

let server: FakeLlmServer;
let provider: OpenAiCompatibleProvider;
before(async () => {
  server = await startFakeLlm();
  provider = new OpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'glm-4-flash',
    apiKey: 'k',
    readTimeoutMs: 2000,
    backoffBaseMs: 10,
  });
});
after(async () => {
  provider.dispose();
  await server.close();
});
beforeEach(() => {
  server.seen.length = 0;
});

function answer(content: string): void {
  server.handle((_r, res) =>
    sendJson(res, 200, completion(content, { prompt_tokens: 412, completion_tokens: 58 })),
  );
}

describe('extractWithLlm (acceptance conversation 1)', () => {
  test('one persona and two instructions, with what was sent asserted', async () => {
    answer(SEED_ANSWER);
    const messages = await pipelineMessages(SEED_SESSION);
    const r = await extractWithLlm(provider, messages, KNOWN, { source_type: 'chat' });
    assert.equal(r.error, undefined);

    // What the user gets: one persona, two instructions, each traced to the message that said it.
    const byCat = (c: string) => r.candidates.filter((x) => x.category === c).map((x) => x.text);
    assert.deepEqual(byCat('persona'), ['用户习惯使用vim编辑器，不要推荐nano']);
    assert.deepEqual(byCat('instruction'), [
      '项目统一使用Python 3.11',
      '代码风格遵循PEP8，docstring用Google风格',
    ]);
    assert.deepEqual(byCat('episodic'), []);
    const [vim, py, pep] = [
      r.candidates.find((c) => c.text.includes('vim'))!,
      r.candidates.find((c) => c.text.includes('3.11'))!,
      r.candidates.find((c) => c.text.includes('PEP8'))!,
    ];
    assert.equal(vim.reason, 'llm:persona');
    assert.equal(py.reason, 'llm:instruction');
    assert.deepEqual(vim.message_ids, ['m0']);
    assert.deepEqual(py.message_ids, ['m1']);
    assert.deepEqual(pep.message_ids, ['m2']);
    assert.deepEqual(py.source_ref, ['msg:m1']);
    assert.equal(py.is_actionable, true, 'Python 3.11: a technical term with a number');
    for (const c of r.candidates) assert.ok(c.confidence >= 0.5 && c.confidence <= 0.95);
    assert.deepEqual(r.usage, { prompt_tokens: 412, completion_tokens: 58 });
    assert.equal(r.guard_redactions, 0, 'the pipeline had already redacted everything');

    // What was sent.
    assert.equal(server.seen.length, 1);
    const body = server.seen[0]!.body;
    assert.equal(body.temperature, 0.1);
    assert.equal(body.max_tokens, 800);
    assert.equal(body.model, 'glm-4-flash');
    const [system, user] = body.messages!;
    assert.equal(system!.role, 'system');
    assert.ok(system!.content.startsWith(EXTRACTION_SYSTEM_PROMPT));
    assert.match(system!.content, /偏好类信息归persona/);
    assert.match(system!.content, /language of the conversation/);
    assert.ok(system!.content.endsWith(`${KNOWN_HEADER}\n用户偏好暗色主题；部署前先运行 hugo --minify 测试`));
    assert.equal(user!.role, 'user');
    assert.match(
      user!.content,
      /^用户：我习惯用vim编辑器，不要给我推荐nano\n用户：我的项目统一用Python 3\.11\n/,
    );
    assert.match(user!.content, /助手：好的，我会记住这些偏好。$/);
    assert.match(user!.content, /\[REDACTED:github-token\]/);
    assert.ok(!server.seen[0]!.raw.includes(SECRET), 'the secret never left the machine');
    assert.ok(!server.seen[0]!.raw.includes('ghp_'), 'not even a fragment of it');
  });

  test('last guard: unredacted messages handed in by mistake are redacted before sending', async () => {
    answer(SEED_ANSWER);
    const { messages } = normalizeSession(SEED_SESSION); // skipped the redact stage
    const r = await extractWithLlm(provider, messages, []);
    assert.equal(r.error, undefined);
    assert.ok(r.guard_redactions >= 1);
    assert.ok(!server.seen[0]!.raw.includes(SECRET));
    assert.doesNotMatch(
      server.seen[0]!.body.messages![0]!.content,
      new RegExp(KNOWN_HEADER),
      'no known block when none are known',
    );
  });

  test('known memories: at most 15 and 500 characters are injected', async () => {
    answer('{"persona": [], "episodic": [], "instruction": []}');
    const known = Array.from({ length: 20 }, (_v, i) => `已知记忆第${i + 1}条：${'项目约定'.repeat(12)}`);
    const r = await extractWithLlm(provider, await pipelineMessages(SEED_SESSION), known);
    assert.deepEqual(r.candidates, [], 'empty arrays: nothing worth keeping');
    assert.equal(r.error, undefined);
    const block = server.seen[0]!.body.messages![0]!.content.split(`${KNOWN_HEADER}\n`)[1]!;
    assert.ok([...block].length <= 500, `${[...block].length} characters`);
    assert.ok(block.split('；').length <= 15);
    assert.match(block, /^已知记忆第1条/, 'newest first, as given');
  });

  test('seed test 2: the second run is told what the first learned, and a repeated known memory is not proposed again', async () => {
    answer(SEED_ANSWER);
    const messages = await pipelineMessages(SEED_SESSION);
    const first = await extractWithLlm(provider, messages, []);
    const known = first.candidates.filter((c) => c.category !== 'episodic').map((c) => c.text);
    const second = await extractWithLlm(provider, messages, known); // the model ignores the instruction and repeats itself
    assert.equal(second.candidates.length, 0);
    const sys = server.seen[1]!.body.messages![0]!.content;
    for (const k of known) assert.ok(sys.includes(k), `known memory "${k}" was injected`);
  });

  test('JSON wrapped in prose and a ```json fence is still read', async () => {
    answer(`好的，以下是提取结果：\n\`\`\`json\n${SEED_ANSWER}\n\`\`\`\n希望对你有帮助！`);
    const r = await extractWithLlm(provider, await pipelineMessages(SEED_SESSION), []);
    assert.equal(r.error, undefined);
    assert.equal(r.candidates.length, 3);
  });

  test('invalid JSON: no candidates, one sentence, tokens still counted, nothing thrown', async () => {
    answer('抱歉，我无法完成这个请求。{persona: 用户习惯');
    const r = await extractWithLlm(provider, await pipelineMessages(SEED_SESSION), []);
    assert.deepEqual(r.candidates, []);
    assert.ok(r.error && isOneSentence(r.error), r.error);
    assert.match(r.error!, /not with the JSON/);
    assert.deepEqual(r.usage, { prompt_tokens: 412, completion_tokens: 58 });
    assert.match(r.raw!, /抱歉/);
  });

  test('a model that never answers: error after the read timeout, nothing thrown', async () => {
    server.handle(() => undefined);
    const slow = new OpenAiCompatibleProvider({ baseUrl: server.baseUrl, model: 'm', readTimeoutMs: 300 });
    const t0 = Date.now();
    const r: ExtractResult = await extractWithLlm(slow, await pipelineMessages(SEED_SESSION), []);
    assert.ok(Date.now() - t0 < 1500);
    assert.deepEqual(r.candidates, []);
    assert.ok(r.error && isOneSentence(r.error), r.error);
    assert.match(r.error!, /within 300 ms/);
  });

  test('the local model is down (connection refused): one sentence', async () => {
    const port = await deadPort();
    const dead = new OpenAiCompatibleProvider({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'qwen2.5:7b',
    });
    const r = await extractWithLlm(dead, await pipelineMessages(SEED_SESSION), []);
    assert.deepEqual(r.candidates, []);
    assert.ok(r.error && isOneSentence(r.error), r.error);
    assert.match(r.error!, /nothing is listening/);
  });

  test('a provider that throws something unexpected still yields an error, not an exception', async () => {
    const broken = { id: 'broken', complete: () => Promise.reject(new TypeError('boom')) };
    const r = await extractWithLlm(broken, await pipelineMessages(SEED_SESSION), []);
    assert.ok(r.error && isOneSentence(r.error), r.error);
  });

  test('what the model invents is redacted too', async () => {
    answer(JSON.stringify({ instruction: [`CI token 是 ${SECRET}`] }));
    const r = await extractWithLlm(provider, await pipelineMessages(SEED_SESSION), []);
    assert.equal(r.candidates.length, 1);
    assert.ok(!r.candidates[0]!.text.includes(SECRET));
    assert.match(r.candidates[0]!.text, /\[REDACTED:/);
  });
});

describe('parseExtraction', () => {
  test('objects where strings were asked, single quotes, trailing commas, bare keys, extra keys', () => {
    const ex = parseExtraction(
      `Here you go: {'persona': [{'text': '用户偏好使用暗色主题'}, {"content": "Prefers tabs over spaces"},], instruction: ['部署前先运行 hugo --minify',], "notes": "ignored", }`,
    );
    assert.deepEqual(ex, {
      persona: ['用户偏好使用暗色主题', 'Prefers tabs over spaces'],
      episodic: [],
      instruction: ['部署前先运行 hugo --minify'],
    });
  });

  test('trims, cuts to 80 characters, drops short and duplicate items (also across categories)', () => {
    const long = '很'.repeat(120);
    const ex = parseExtraction(
      JSON.stringify({
        persona: ['  - 用户习惯使用vim编辑器  ', 'vim', '无'],
        episodic: ['用户习惯使用VIM编辑器。', long],
        instruction: '项目统一使用Python 3.11',
      }),
    )!;
    assert.deepEqual(ex.persona, ['用户习惯使用vim编辑器']);
    assert.deepEqual(ex.episodic, ['很'.repeat(80)]);
    assert.deepEqual(ex.instruction, ['项目统一使用Python 3.11']);
  });

  test('reasoning blocks are skipped; JSON without any of the three keys is not an answer', () => {
    assert.deepEqual(
      parseExtraction('<think>{"persona": ["不是这个"]}</think>{"episodic": ["完成了博客主题迁移"]}')
        ?.episodic,
      ['完成了博客主题迁移'],
    );
    assert.equal(parseExtraction('{"memories": ["x"]}'), undefined);
    assert.equal(parseExtraction('I could not find anything.'), undefined);
  });
});

describe('mergeRuleAndLlm', () => {
  /** The rule stage on seed test 1 plus a hedged sentence the rules drop. */
  async function rulesOf(): Promise<{
    candidates: Candidate[];
    dropped: { text: string; reason: string; message_id?: string }[];
  }> {
    const s: SessionInput = {
      ...SEED_SESSION,
      messages: [
        ...SEED_SESSION.messages.slice(0, 3),
        { role: 'user', content: '我们可能要把接口超时设为3000ms' },
      ],
    };
    return analyzeSession(s);
  }
  function llm(text: string, category: Candidate['category'], confidence = 0.7): Candidate {
    return {
      text,
      category,
      source_type: 'chat',
      is_actionable: false,
      source_ref: ['msg:m9'],
      message_ids: ['m9'],
      reason: `llm:${category}`,
      score: 4,
      confidence,
      pending: false,
    };
  }
  const never = () => false;

  test('agreement by words raises confidence and keeps the rule candidate; one-sided facts wait for review with both reasons', async () => {
    const rules = await rulesOf();
    const vimRule = rules.candidates.find((c) => c.text.includes('vim'))!;
    const pyRule = rules.candidates.find((c) => c.text.includes('3.11'))!;
    const pepRule = rules.candidates.find((c) => c.text.includes('PEP8'))!;
    assert.ok(vimRule && pyRule && pepRule, 'the rules keep all three');
    assert.equal(rules.dropped[0]?.reason, 'drop:hedge(可能)');

    const merged = await mergeRuleAndLlm(
      rules.candidates,
      [
        llm('用户习惯使用vim编辑器，不要推荐nano', 'persona'),
        llm('项目统一使用Python 3.11', 'instruction'),
        llm('接口超时设为3000ms', 'instruction'),
      ],
      never,
      rules.dropped,
    );
    assert.equal(merged.length, 4);
    const vim = merged.find((c) => c.text === vimRule.text)!;
    assert.equal(vim.confidence, Math.round(Math.min(0.98, vimRule.confidence + 0.1) * 1000) / 1000);
    assert.equal(vim.reason, `${vimRule.reason} +llm-agrees`);
    assert.equal(vim.pending, false);
    assert.ok(vim.message_ids.includes('m0') && vim.message_ids.includes('m9'));

    const pep = merged.find((c) => c.text === pepRule.text)!;
    assert.equal(pep.pending, true);
    assert.equal(pep.pending_reason, 'the LLM did not propose it');
    assert.equal(pep.reason, pepRule.reason, 'the rule that kept it is still named');
    assert.equal(pep.confidence, pepRule.confidence);

    const timeout = merged.find((c) => c.text === '接口超时设为3000ms')!;
    assert.equal(timeout.pending, true);
    assert.equal(timeout.reason, 'llm:instruction');
    assert.equal(timeout.pending_reason, 'the rules did not keep it (drop:hedge(可能))');
    assert.equal(merged[3], timeout, 'LLM-only items come after the rule candidates');
  });

  test('agreement through the similarity callback (embeddings) when the words differ', async () => {
    const rules = await rulesOf();
    const pepRule = rules.candidates.find((c) => c.text.includes('PEP8'))!;
    const asked: [string, string][] = [];
    const merged = await mergeRuleAndLlm(
      [pepRule],
      [llm('Follow PEP 8 and Google-style docstrings', 'instruction')],
      async (a, b) => {
        asked.push([a, b]);
        return b === pepRule.text;
      },
    );
    assert.equal(merged.length, 1);
    assert.match(merged[0]!.reason, /\+llm-agrees$/);
    assert.deepEqual(asked, [['Follow PEP 8 and Google-style docstrings', pepRule.text]]);
  });

  test('confidence is capped at 0.98; a failing similarity callback is not agreement', async () => {
    const rule: Candidate = {
      ...llm('部署前先运行 hugo --minify 测试', 'instruction', 0.95),
      reason: 'rule:workflow(先)',
      message_ids: ['m1'],
      source_ref: ['msg:m1'],
    };
    const [agreed] = await mergeRuleAndLlm(
      [rule],
      [llm('部署前先运行 hugo --minify 测试', 'instruction')],
      never,
    );
    assert.equal(agreed!.confidence, 0.98);
    const out = await mergeRuleAndLlm(
      [rule],
      [llm('Always run the site build before deploying', 'instruction')],
      () => {
        throw new Error('embedding model not loaded');
      },
    );
    assert.equal(out.length, 2);
    assert.ok(out.every((c) => c.pending));
    assert.equal(
      out[1]!.pending_reason,
      'the rules did not keep it (no rule matched any sentence saying it)',
    );
  });

  test('different numbers are different facts, whatever the shared words', async () => {
    const rule: Candidate = {
      ...llm('我的项目统一用Python 3.11', 'instruction', 0.8),
      reason: 'rule:decision(统一用)',
    };
    const out = await mergeRuleAndLlm([rule], [llm('项目统一使用Python 3.12', 'instruction')], never);
    assert.equal(out.length, 2);
    assert.ok(out.every((c) => c.pending));
  });

  test("category: the LLM's wins when they differ, and the reason says so; an explicit request stays pending", async () => {
    const rule: Candidate = {
      ...llm('我习惯用vim编辑器', 'instruction', 0.8),
      reason: 'rule:explicit-request(请记住) +preference(我习惯)',
      pending: true,
      pending_reason: 'explicit request (请记住)',
    };
    const [m] = await mergeRuleAndLlm([rule], [llm('用户习惯用vim编辑器', 'persona')], never);
    assert.equal(m!.category, 'persona');
    assert.equal(
      m!.reason,
      'rule:explicit-request(请记住) +preference(我习惯) +llm-agrees +llm-category(persona over instruction)',
    );
    assert.equal(m!.pending, true);
    assert.equal(m!.pending_reason, 'explicit request (请记住)');
  });
});

describe('service helpers', () => {
  test('extractionMessages: redacted, with the same message ids as the rule candidates', async () => {
    const msgs = await extractionMessages(SEED_SESSION);
    assert.deepEqual(
      msgs.map((m) => m.id),
      ['m0', 'm1', 'm2', 'm3', 'm4'],
    );
    assert.ok(!msgs.some((m) => m.content.includes(SECRET)));
    const rules = await analyzeSession(SEED_SESSION);
    assert.equal(rules.candidates.find((c) => c.text.includes('3.11'))!.message_ids[0], msgs[1]!.id);
    assert.deepEqual(
      await extractionMessages({ ...SEED_SESSION, messages: [{ role: 'user', content: 'ok' }] }),
      [],
    );
  });

  test('selectKnown: latest persona and instruction memories, not wrong or archived, at most 15', () => {
    const mk = (text: string, category: Candidate['category'], status: string, day: number) => ({
      text,
      category,
      status,
      created_at: `2026-05-${String(day).padStart(2, '0')}T00:00:00.000Z`,
    });
    const known = selectKnown([
      mk('older instruction', 'instruction', 'active', 1),
      mk('an event', 'episodic', 'active', 9),
      mk('newest persona', 'persona', 'pending', 8),
      mk('marked wrong', 'persona', 'wrong', 7),
      mk('archived', 'instruction', 'archived', 6),
      mk('confirmed rule', 'instruction', 'confirmed', 5),
    ]);
    assert.deepEqual(known, ['newest persona', 'confirmed rule', 'older instruction']);
    const many = Array.from({ length: 30 }, (_v, i) =>
      mk(`rule ${i}`, 'instruction', 'active', (i % 28) + 1),
    );
    assert.equal(selectKnown(many).length, 15);
  });
});

describe('LLM usage counter', () => {
  test('accumulates per extraction in <dataDir>/llm-usage.json and keeps the last error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mnemo-llm-usage-'));
    try {
      const c = new LlmUsageCounter(dir, () => new Date('2026-05-15T12:00:00Z'));
      assert.deepEqual(c.read(), { prompt: 0, completion: 0, extractions: 0, failures: 0 });
      c.record({ usage: { prompt_tokens: 412, completion_tokens: 58 } });
      c.record({
        error: 'The LLM is unavailable: nothing is listening at http://127.0.0.1:11434 (connection refused).',
      });
      c.record({ usage: { prompt_tokens: 100, completion_tokens: 20, estimated: true } });
      const again = new LlmUsageCounter(dir).read(); // durable: a new process sees it
      assert.equal(again.prompt, 512);
      assert.equal(again.completion, 78);
      assert.equal(again.extractions, 3);
      assert.equal(again.failures, 1);
      assert.equal(again.estimated, true);
      assert.deepEqual(again.last_error, {
        at: '2026-05-15T12:00:00.000Z',
        message:
          'The LLM is unavailable: nothing is listening at http://127.0.0.1:11434 (connection refused).',
      });
      assert.match(
        LlmUsageCounter.describe(again),
        /3 extraction\(s\), 512 prompt \+ 78 completion tokens \(partly estimated\), 1 failed/,
      );
      assert.equal(JSON.parse(readFileSync(join(dir, 'llm-usage.json'), 'utf8')).prompt, 512);
      writeFileSync(join(dir, 'llm-usage.json'), '{not json');
      assert.equal(c.read().extractions, 0, 'a damaged counter starts over instead of breaking ingest');
      assert.equal(c.record({ usage: { prompt_tokens: 1, completion_tokens: 1 } }).extractions, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
