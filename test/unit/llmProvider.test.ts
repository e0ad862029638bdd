/**
 * The LLM providers against a real chat-completions server on 127.0.0.1: answers, timeouts, retries,
 * the circuit breaker, refused connections; settings resolution and the vscode-lm bridge.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  LlmUnavailableError,
  OpenAiCompatibleProvider,
  VsCodeLmProvider,
  createLlmProvider,
  resolveLlmSettings,
  type OpenAiCompatibleOptions,
} from '../../sidecar/llm/index';
import { ErrorCodes } from '../../sidecar/protocol';
import {
  completion,
  deadPort,
  isOneSentence,
  sendJson,
  startFakeLlm,
  type FakeLlmServer,
} from '../support/fakeLlm';

const MSGS = [
  { role: 'system' as const, content: 'You extract memories.' },
  { role: 'user' as const, content: '用户：我习惯用vim' },
];
const OPTS = { temperature: 0.1, max_tokens: 800 };

let server: FakeLlmServer;
before(async () => {
  server = await startFakeLlm();
});
after(async () => {
  await server.close();
});
beforeEach(() => {
  server.seen.length = 0;
});

function provider(extra: Partial<OpenAiCompatibleOptions> = {}): OpenAiCompatibleProvider {
  return new OpenAiCompatibleProvider({
    baseUrl: server.baseUrl,
    model: 'fake-model',
    apiKey: 'sk-test-key-123',
    readTimeoutMs: 1000,
    backoffBaseMs: 10,
    random: () => 0.5,
    ...extra,
  });
}

async function rejectsWith(
  p: Promise<unknown>,
  reason: string,
  ...patterns: RegExp[]
): Promise<LlmUnavailableError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof LlmUnavailableError, `expected LlmUnavailableError, got ${String(caught)}`);
  assert.equal(caught.reason, reason, caught.message);
  assert.equal(caught.code, ErrorCodes.LlmUnavailable);
  assert.ok(isOneSentence(caught.message), `not one sentence: ${caught.message}`);
  for (const re of patterns) assert.match(caught.message, re);
  assert.doesNotMatch(caught.message, /sk-test-key-123/);
  return caught;
}

describe('OpenAI-compatible provider', () => {
  test('happy path: posts the chat to /chat/completions with the key and returns text and usage', async () => {
    server.handle((_r, res) => sendJson(res, 200, completion('{"persona":[]}')));
    const p = provider();
    const out = await p.complete(MSGS, OPTS);
    assert.equal(out.text, '{"persona":[]}');
    assert.deepEqual(out.usage, { prompt_tokens: 321, completion_tokens: 45 });
    assert.equal(server.seen.length, 1);
    const req = server.seen[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/v1/chat/completions');
    assert.equal(req.headers.authorization, 'Bearer sk-test-key-123');
    assert.equal(req.body.model, 'fake-model');
    assert.equal(req.body.temperature, 0.1);
    assert.equal(req.body.max_tokens, 800);
    assert.deepEqual(req.body.messages, MSGS);
    p.dispose();
  });

  test('a slow reply that arrives within the read timeout is accepted', async () => {
    server.handle((_r, res) => setTimeout(() => sendJson(res, 200, completion('late but fine')), 200));
    const out = await provider({ readTimeoutMs: 800 }).complete(MSGS, OPTS);
    assert.equal(out.text, 'late but fine');
  });

  test('read timeout: a server that accepts but never answers fails in about the timeout, with one sentence', async () => {
    server.handle(() => undefined); // holds the request open
    const t0 = Date.now();
    await rejectsWith(
      provider({ readTimeoutMs: 300 }).complete(MSGS, OPTS),
      'read-timeout',
      /within 300 ms/,
      /accepted the connection/,
    );
    const elapsed = Date.now() - t0;
    assert.ok(elapsed >= 280 && elapsed < 1500, `took ${elapsed} ms`);
    assert.equal(server.seen.length, 1, 'timeouts are not retried');
  });

  test('read timeout also bounds a server that starts answering and then stalls', async () => {
    server.handle((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices": [');
    });
    await rejectsWith(provider({ readTimeoutMs: 300 }).complete(MSGS, OPTS), 'read-timeout');
  });

  test('connection refused (nothing listening) fails fast with one sentence naming the address', async () => {
    const port = await deadPort();
    const p = new OpenAiCompatibleProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'qwen2.5:7b' });
    const t0 = Date.now();
    await rejectsWith(
      p.complete(MSGS, OPTS),
      'connect-refused',
      new RegExp(`127\\.0\\.0\\.1:${port}`),
      /nothing is listening/,
    );
    assert.ok(Date.now() - t0 < 2000);
  });

  test('429 then success: Retry-After is honoured before the retry', async () => {
    server.handle((_r, res, n) =>
      n === 1
        ? sendJson(res, 429, { error: { message: 'rate limit' } }, { 'retry-after': '1' })
        : sendJson(res, 200, completion('ok')),
    );
    const t0 = Date.now();
    const out = await provider().complete(MSGS, OPTS);
    const waited = Date.now() - t0;
    assert.equal(out.text, 'ok');
    assert.equal(server.seen.length, 2);
    assert.ok(waited >= 950, `retried after ${waited} ms, before Retry-After: 1`);
    assert.ok(waited < 3000, `waited ${waited} ms`);
  });

  test('a Retry-After longer than Mnemo waits fails at once instead of hammering or hanging', async () => {
    server.handle((_r, res) => sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '120' }));
    const t0 = Date.now();
    await rejectsWith(provider({ maxRetryAfterMs: 5000 }).complete(MSGS, OPTS), 'rate-limited', /wait 120 s/);
    assert.ok(Date.now() - t0 < 1000);
    assert.equal(server.seen.length, 1);
  });

  test('5xx is retried with backoff, at most 3 attempts, then one sentence with the status', async () => {
    server.handle((_r, res) => sendJson(res, 503, { error: { message: 'model is loading' } }));
    await rejectsWith(
      provider().complete(MSGS, OPTS),
      'server-error',
      /HTTP 503/,
      /model is loading/,
      /after 3 attempts/,
    );
    assert.equal(server.seen.length, 3);
  });

  test('500 then success recovers within one call', async () => {
    server.handle((_r, res, n) =>
      n === 1 ? sendJson(res, 500, {}) : sendJson(res, 200, completion('second time')),
    );
    assert.equal((await provider().complete(MSGS, OPTS)).text, 'second time');
    assert.equal(server.seen.length, 2);
  });

  test('repeated 500s open the circuit: the next call fails fast without contacting the server; a probe closes it', async () => {
    let now = 1_000_000;
    const p = provider({ maxAttempts: 1, breakerThreshold: 5, breakerOpenMs: 60_000, now: () => now });
    server.handle((_r, res) => sendJson(res, 500, { error: 'boom' }));
    for (let i = 0; i < 5; i++) await rejectsWith(p.complete(MSGS, OPTS), 'server-error');
    assert.equal(server.seen.length, 5);
    assert.equal(p.breaker.state, 'open');

    const t0 = Date.now();
    await rejectsWith(
      p.complete(MSGS, OPTS),
      'circuit-open',
      /last 5 calls/,
      /HTTP 500/,
      /pauses it for 60 s/,
    );
    // Failing fast means no network call (counted below) and no wait: a loaded machine may take a few
    // hundred ms to get here, a wait for the open period would take 60 s.
    assert.ok(Date.now() - t0 < 5_000, 'fails fast');
    assert.equal(server.seen.length, 5, 'the server was not contacted while the circuit is open');

    // After the open period one probe goes out; it fails, so the circuit opens again.
    now += 60_000;
    assert.equal(p.breaker.state, 'half-open');
    await rejectsWith(p.complete(MSGS, OPTS), 'server-error');
    assert.equal(server.seen.length, 6);
    await rejectsWith(p.complete(MSGS, OPTS), 'circuit-open');
    assert.equal(server.seen.length, 6);

    // The server recovers: the next probe succeeds and closes the circuit.
    now += 60_000;
    server.handle((_r, res) => sendJson(res, 200, completion('back')));
    assert.equal((await p.complete(MSGS, OPTS)).text, 'back');
    assert.equal(p.breaker.state, 'closed');
    assert.equal((await p.complete(MSGS, OPTS)).text, 'back');
    assert.equal(server.seen.length, 8);
  });

  test('a rejected key is not retried and the key never appears in the message', async () => {
    server.handle((_r, res) =>
      sendJson(res, 401, { error: { message: 'Incorrect API key provided: sk-test-key-123' } }),
    );
    await rejectsWith(
      provider().complete(MSGS, OPTS),
      'auth',
      /rejected the API key/,
      /\*\*\*/,
      /Set LLM API Key/,
    );
    assert.equal(server.seen.length, 1);
  });

  test('HTTP 200 that is not a chat completion is a clear error', async () => {
    server.handle((_r, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>'),
    );
    await rejectsWith(provider().complete(MSGS, OPTS), 'bad-answer', /not JSON/);
    server.handle((_r, res) => sendJson(res, 200, { data: [] }));
    await rejectsWith(provider().complete(MSGS, OPTS), 'bad-answer', /choices\[0\]\.message\.content/);
  });

  test('an abort signal cancels a call in flight', async () => {
    server.handle(() => undefined);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const p = provider({ readTimeoutMs: 5000 });
    await rejectsWith(p.complete(MSGS, { ...OPTS, signal: ac.signal }), 'aborted');
    assert.equal(p.breaker.consecutiveFailures, 0, 'a cancellation is not a failure of the server');
  });
});

describe('settings and provider selection', () => {
  test('off by default; an API key in the environment alone does not turn it on', () => {
    const s = resolveLlmSettings({}, { GLM_API_KEY: 'k' });
    assert.equal(s.provider, 'off');
    assert.equal(createLlmProvider({}, {}, { GLM_API_KEY: 'k' }), undefined);
    assert.equal(createLlmProvider({ provider: 'off', baseUrl: 'http://x' }, {}, {}), undefined);
  });

  test('presets fill base URL and model; the preset key variable is used only for the preset host', () => {
    const glm = resolveLlmSettings({}, { MNEMO_LLM_PRESET: 'glm-4-flash', GLM_API_KEY: 'glm-key' });
    assert.equal(glm.provider, 'openai-compatible');
    assert.equal(glm.baseUrl, 'https://open.bigmodel.cn/api/paas/v4');
    assert.equal(glm.model, 'glm-4-flash');
    assert.equal(glm.apiKey, 'glm-key');
    assert.equal(glm.connectTimeoutMs, 5000);
    assert.equal(glm.readTimeoutMs, 30000);
    const moved = resolveLlmSettings(
      { preset: 'glm-4-flash', baseUrl: 'https://proxy.example.com/v1' },
      { GLM_API_KEY: 'glm-key' },
    );
    assert.equal(moved.apiKey, undefined, 'GLM_API_KEY must not be sent to another host');
    const ds = resolveLlmSettings({ provider: 'openai-compatible', preset: 'deepseek' }, {});
    assert.deepEqual([ds.baseUrl, ds.model], ['https://api.deepseek.com/v1', 'deepseek-chat']);
    const oa = resolveLlmSettings({ provider: 'openai-compatible', preset: 'openai' }, {});
    assert.deepEqual([oa.baseUrl, oa.model], ['https://api.openai.com/v1', 'gpt-4o-mini']);
    const ol = resolveLlmSettings({ provider: 'openai-compatible', preset: 'ollama' }, {});
    assert.deepEqual(
      [ol.baseUrl, ol.model, ol.apiKey],
      ['http://127.0.0.1:11434/v1', 'qwen2.5:7b', undefined],
    );
  });

  test('settings win over the environment; empty strings count as unset', () => {
    const s = resolveLlmSettings(
      { provider: 'openai-compatible', baseUrl: '', model: 'mine', apiKey: '' },
      {
        MNEMO_LLM_BASE_URL: 'http://127.0.0.1:9/v1/',
        MNEMO_LLM_MODEL: 'env-model',
        MNEMO_LLM_API_KEY: 'env-key',
        MNEMO_LLM_READ_TIMEOUT_MS: '1234',
      },
    );
    assert.equal(s.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(s.model, 'mine');
    assert.equal(s.apiKey, 'env-key');
    assert.equal(s.readTimeoutMs, 1234);
    assert.equal(resolveLlmSettings({}, { MNEMO_LLM_PROVIDER: 'vscode-lm' }).readTimeoutMs, 60000);
  });

  test('a hosted preset without a key fails with a sentence saying where to set it, without any network call', async () => {
    const p = createLlmProvider({ provider: 'openai-compatible', preset: 'glm-4-flash' }, {}, {});
    assert.ok(p);
    await rejectsWith(p.complete(MSGS, OPTS), 'no-api-key', /GLM-4-Flash/, /GLM_API_KEY/);
  });

  test('misconfiguration surfaces on each call: no base URL, vscode-lm outside VS Code', async () => {
    await rejectsWith(
      createLlmProvider({ provider: 'openai-compatible' }, {}, {})!.complete(MSGS, OPTS),
      'not-configured',
      /base URL/,
    );
    await rejectsWith(
      createLlmProvider({ provider: 'vscode-lm' }, {}, {})!.complete(MSGS, OPTS),
      'not-configured',
      /only works inside VS Code/,
    );
  });

  test('the env-driven provider talks to the configured server with the configured timeouts', async () => {
    server.handle((_r, res) => sendJson(res, 200, completion('env ok')));
    const p = createLlmProvider(
      {},
      {},
      { MNEMO_LLM_BASE_URL: server.baseUrl, MNEMO_LLM_MODEL: 'm1', MNEMO_LLM_API_KEY: 'k1' },
    );
    assert.ok(p);
    assert.match(p.id, /^openai-compatible:m1@127\.0\.0\.1:\d+$/);
    assert.equal((await p.complete(MSGS, OPTS)).text, 'env ok');
    assert.equal(server.seen[0]!.headers.authorization, 'Bearer k1');
    assert.equal(server.seen[0]!.body.model, 'm1');
  });
});

describe('vscode-lm provider', () => {
  test('sends the prompt through the callback and estimates usage', async () => {
    const calls: unknown[] = [];
    const p = createLlmProvider(
      { provider: 'vscode-lm', model: 'gpt-4o' },
      {
        vscodeLm: async (params) => {
          calls.push(params);
          return { text: '{"persona": ["用户习惯使用vim"]}', model: 'copilot-gpt-4o' };
        },
      },
      {},
    )!;
    const out = await p.complete(MSGS, OPTS);
    assert.equal(out.text, '{"persona": ["用户习惯使用vim"]}');
    assert.equal(out.usage?.estimated, true);
    assert.ok(out.usage!.prompt_tokens > 0 && out.usage!.completion_tokens > 0);
    assert.deepEqual(calls, [{ messages: MSGS, max_tokens: 800, model: 'gpt-4o' }]);
  });

  test('times out with one sentence and aborts the extension call', async () => {
    let aborted = false;
    const p = new VsCodeLmProvider({
      timeoutMs: 150,
      call: (_params, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('cancelled'));
          });
        }),
    });
    await rejectsWith(p.complete(MSGS, OPTS), 'read-timeout', /within 150 ms/);
    assert.ok(aborted);
  });

  test("the extension's own failure becomes one sentence", async () => {
    const p = new VsCodeLmProvider({
      call: () => Promise.reject(new Error('No chat model is available; sign in to GitHub Copilot.')),
    });
    await rejectsWith(p.complete(MSGS, OPTS), 'http', /sign in to GitHub Copilot\)\.$/);
  });
});
