/**
 * Any OpenAI-compatible chat-completions endpoint (`POST {baseUrl}/chat/completions`, Bearer key):
 * GLM-4-Flash, DeepSeek, OpenAI, a local Ollama or LM Studio.
 *
 * A dead local model must fail loudly and fast, never hang extraction (docs/design.md, Extraction with an
 * LLM: calls are bounded). So:
 * - connect timeout (default 5 s) from the request until the socket is connected (TLS: handshake
 *   done), DNS included; read timeout (default 30 s) from then until the whole answer has arrived
 *   (stricter than `requests`' per-recv timeout: a server trickling bytes cannot hold us forever);
 * - retries with exponential backoff and jitter on HTTP 429 (honouring `Retry-After`, bounded) and
 *   5xx, at most 3 attempts; network errors and timeouts are not retried (they rarely heal in seconds);
 * - a circuit breaker: after 5 consecutive failed calls it stays open for 60 s and calls fail at once
 *   without touching the network; then one probe call (half-open) decides whether to close it.
 * Every failure is an {@link LlmUnavailableError} whose message is one sentence and never holds the key.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import {
  LlmUnavailableError,
  type LlmCompleteOptions,
  type LlmCompletion,
  type LlmMessage,
  type LlmProvider,
  type LlmUsage,
} from './types';
import { cutText } from '../shared/text';

export interface OpenAiCompatibleOptions {
  /** Base URL including the version path, e.g. `https://api.deepseek.com/v1`. Required. */
  baseUrl: string;
  /** Model name. Required. */
  model: string;
  /** Sent as `Authorization: Bearer`. Optional for local servers. */
  apiKey?: string;
  /** Fail with a clear message instead of calling when no key is set. Default false. */
  requiresKey?: boolean;
  /** Name for messages, e.g. `GLM-4-Flash`. Default `the LLM server`. */
  label?: string;
  /** Where the user sets the key, for messages. Default: the command and MNEMO_LLM_API_KEY. */
  keyHint?: string;
  /** Connect timeout in ms (DNS + TCP + TLS). Default 5000. */
  connectTimeoutMs?: number;
  /** Read timeout in ms: from connected until the whole answer arrived. Default 30000. */
  readTimeoutMs?: number;
  /** Attempts per call on 429/5xx. Default 3. */
  maxAttempts?: number;
  /** First backoff delay in ms (doubles per attempt, with jitter). Default 500. */
  backoffBaseMs?: number;
  /** Cap of one backoff delay in ms. Default 8000. */
  maxBackoffMs?: number;
  /** Longest `Retry-After` honoured, in ms; a longer one fails the call at once. Default 20000. */
  maxRetryAfterMs?: number;
  /** Consecutive failed calls that open the circuit. Default 5. */
  breakerThreshold?: number;
  /** How long the circuit stays open, in ms. Default 60000. */
  breakerOpenMs?: number;
  /** Largest answer accepted, in bytes. Default 2 MiB. */
  maxResponseBytes?: number;
  /** Clock (ms), for tests. Default Date.now. */
  now?: () => number;
  /** Random in [0,1), for the jitter. Default Math.random. */
  random?: () => number;
}

export const OPENAI_COMPATIBLE_DEFAULTS = {
  connectTimeoutMs: 5_000,
  readTimeoutMs: 30_000,
  maxAttempts: 3,
  backoffBaseMs: 500,
  maxBackoffMs: 8_000,
  maxRetryAfterMs: 20_000,
  breakerThreshold: 5,
  breakerOpenMs: 60_000,
  maxResponseBytes: 2 * 1024 * 1024,
} as const;

// ------------------------------------------------------------------------------ circuit breaker

export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * Consecutive-failure circuit breaker. `admit()` says whether a call may go out: `normal`, or `probe`
 * (the single trial call after the open period); it throws while open or while a probe is in flight.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private lastFailure = '';

  constructor(
    private readonly threshold: number,
    private readonly openMs: number,
    private readonly now: () => number,
  ) {}

  get state(): BreakerState {
    if (this.failures < this.threshold) return 'closed';
    return this.now() - this.openedAt >= this.openMs ? 'half-open' : 'open';
  }

  /** Consecutive failures so far. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** @returns how the call goes out, or `{ retryInMs }` when it must not. */
  admit(): 'normal' | 'probe' | { retryInMs: number; failures: number; last: string } {
    const state = this.state;
    if (state === 'closed') return 'normal';
    if (state === 'half-open' && !this.probing) {
      this.probing = true;
      return 'probe';
    }
    const retryInMs = state === 'open' ? this.openMs - (this.now() - this.openedAt) : this.openMs;
    return { retryInMs: Math.max(0, retryInMs), failures: this.failures, last: this.lastFailure };
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
  }

  failure(label: string): void {
    this.lastFailure = label;
    this.failures++;
    if (this.failures >= this.threshold) this.openedAt = this.now(); // (re)open, also after a failed probe
    this.probing = false;
  }

  /** A call ended without a verdict (cancelled): a probe slot is freed, nothing counted. */
  release(): void {
    this.probing = false;
  }
}

// ------------------------------------------------------------------------------ provider

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export class OpenAiCompatibleProvider implements LlmProvider {
  readonly id: string;
  readonly url: URL;
  readonly breaker: CircuitBreaker;
  private readonly o: Required<Omit<OpenAiCompatibleOptions, 'apiKey' | 'label' | 'keyHint'>> &
    Pick<OpenAiCompatibleOptions, 'apiKey'>;
  private readonly where: string;
  private readonly keyHint: string;
  private readonly agent: http.Agent;
  private readonly isHttps: boolean;

  constructor(opts: OpenAiCompatibleOptions) {
    const base = (opts.baseUrl ?? '').trim().replace(/\/+$/, '');
    let url: URL;
    try {
      url = new URL(`${base}/chat/completions`);
    } catch {
      throw new LlmUnavailableError(
        'not-configured',
        `The LLM is unavailable: "${base}" is not a URL; set mnemo.llm.baseUrl (e.g. https://api.deepseek.com/v1).`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new LlmUnavailableError(
        'not-configured',
        `The LLM is unavailable: mnemo.llm.baseUrl must start with http:// or https://, not ${url.protocol}.`,
      );
    }
    if (!opts.model?.trim())
      throw new LlmUnavailableError(
        'not-configured',
        'The LLM is unavailable: no model is set; set mnemo.llm.model or choose a preset.',
      );
    this.url = url;
    this.isHttps = url.protocol === 'https:';
    const d = OPENAI_COMPATIBLE_DEFAULTS;
    this.o = {
      baseUrl: base,
      model: opts.model.trim(),
      apiKey: opts.apiKey || undefined,
      requiresKey: opts.requiresKey ?? false,
      connectTimeoutMs: opts.connectTimeoutMs ?? d.connectTimeoutMs,
      readTimeoutMs: opts.readTimeoutMs ?? d.readTimeoutMs,
      maxAttempts: Math.max(1, opts.maxAttempts ?? d.maxAttempts),
      backoffBaseMs: opts.backoffBaseMs ?? d.backoffBaseMs,
      maxBackoffMs: opts.maxBackoffMs ?? d.maxBackoffMs,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? d.maxRetryAfterMs,
      breakerThreshold: Math.max(1, opts.breakerThreshold ?? d.breakerThreshold),
      breakerOpenMs: opts.breakerOpenMs ?? d.breakerOpenMs,
      maxResponseBytes: opts.maxResponseBytes ?? d.maxResponseBytes,
      now: opts.now ?? Date.now,
      random: opts.random ?? Math.random,
    };
    // url.origin never includes user:password, so messages cannot leak credentials put in the URL.
    const shown = `${url.origin}${url.pathname.replace(/\/chat\/completions$/, '')}`;
    this.where = `${opts.label ?? 'the LLM server'} at ${shown}`;
    this.keyHint =
      opts.keyHint ?? 'set it with "Mnemo: Set LLM API Key" or the MNEMO_LLM_API_KEY environment variable';
    this.id = `openai-compatible:${this.o.model}@${url.host}`;
    this.breaker = new CircuitBreaker(this.o.breakerThreshold, this.o.breakerOpenMs, this.o.now);
    // No keep-alive: extractions are minutes apart, so a pooled socket would mostly be stale (reset by
    // the server) and one fresh connection per call keeps the connect timeout meaningful.
    this.agent = this.isHttps
      ? new https.Agent({ keepAlive: false, maxSockets: 4 })
      : new http.Agent({ keepAlive: false, maxSockets: 4 });
  }

  dispose(): void {
    this.agent.destroy();
  }

  async complete(messages: LlmMessage[], opts: LlmCompleteOptions): Promise<LlmCompletion> {
    if (this.o.requiresKey && !this.o.apiKey) {
      throw new LlmUnavailableError(
        'no-api-key',
        `The LLM is unavailable: ${this.where} needs an API key and none is set; ${this.keyHint}.`,
      );
    }
    if (opts.signal?.aborted) throw aborted();
    const admission = this.breaker.admit();
    if (typeof admission === 'object') {
      throw new LlmUnavailableError(
        'circuit-open',
        `The LLM is unavailable: the last ${admission.failures} calls to ${this.where} failed (last: ${admission.last}), so Mnemo pauses it for ${seconds(admission.retryInMs)}.`,
      );
    }
    const body = JSON.stringify({
      model: this.o.model,
      messages,
      temperature: opts.temperature,
      max_tokens: opts.max_tokens,
      stream: false,
    });
    try {
      const out = await this.withRetries(body, admission === 'probe' ? 1 : this.o.maxAttempts, opts.signal);
      this.breaker.success();
      return out;
    } catch (err) {
      if (err instanceof LlmUnavailableError && err.reason === 'aborted') this.breaker.release();
      else this.breaker.failure(failureLabel(err));
      throw err;
    }
  }

  private async withRetries(
    body: string,
    attempts: number,
    signal: AbortSignal | undefined,
  ): Promise<LlmCompletion> {
    for (let attempt = 1; ; attempt++) {
      const answer = await this.send(body, signal);
      if (answer.status >= 200 && answer.status < 300) return this.parse(answer);
      const retryable = answer.status === 429 || answer.status >= 500;
      if (!retryable || attempt >= attempts) throw this.statusError(answer, attempt);
      let delay = Math.min(this.o.maxBackoffMs, this.o.backoffBaseMs * 2 ** (attempt - 1));
      delay = Math.round(delay * (0.5 + this.o.random() * 0.5)); // "equal jitter": never all at once
      const retryAfter = parseRetryAfter(answer.headers['retry-after'], this.o.now());
      if (retryAfter !== undefined && (answer.status === 429 || answer.status === 503)) {
        if (retryAfter > this.o.maxRetryAfterMs) {
          throw new LlmUnavailableError(
            answer.status === 429 ? 'rate-limited' : 'server-error',
            `The LLM is unavailable: ${this.where} asked to wait ${seconds(retryAfter)} (HTTP ${answer.status}), longer than Mnemo waits (${seconds(this.o.maxRetryAfterMs)}); extraction resumes with a later session.`,
            { status: answer.status },
          );
        }
        delay = retryAfter;
      }
      await sleep(delay, signal);
    }
  }

  /** One HTTP exchange with the connect/read timeouts; rejects with LlmUnavailableError on network trouble. */
  private send(body: string, signal: AbortSignal | undefined): Promise<RawAnswer> {
    return new Promise<RawAnswer>((resolve, reject) => {
      let settled = false;
      let readTimer: NodeJS.Timeout | undefined;
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        accept: 'application/json',
        'content-length': Buffer.byteLength(body),
      };
      if (this.o.apiKey) headers['authorization'] = `Bearer ${this.o.apiKey}`;
      const onAbort = (): void => fail(aborted());
      const cleanup = (): void => {
        clearTimeout(connectTimer);
        clearTimeout(readTimer);
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (err: LlmUnavailableError): void => {
        if (settled) return;
        settled = true;
        cleanup();
        reject(err);
        req.destroy();
      };
      const startRead = (): void => {
        clearTimeout(connectTimer);
        readTimer ??= setTimeout(
          () =>
            fail(
              new LlmUnavailableError(
                'read-timeout',
                `The LLM is unavailable: ${this.where} accepted the connection but sent no complete answer within ${seconds(this.o.readTimeoutMs)}; the model may be overloaded or its server may have died.`,
              ),
            ),
          this.o.readTimeoutMs,
        );
      };

      const mod = this.isHttps ? https : http;
      const req = mod.request(this.url, { method: 'POST', headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > this.o.maxResponseBytes) {
            fail(
              new LlmUnavailableError(
                'bad-answer',
                `The LLM is unavailable: ${this.where} sent an answer larger than ${this.o.maxResponseBytes} bytes; is it really a chat-completions endpoint?`,
              ),
            );
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          cleanup();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', (e) => fail(this.networkError(e)));
        res.on('aborted', () =>
          fail(
            this.networkError(
              Object.assign(new Error('the server broke off its answer'), { code: 'ECONNRESET' }),
            ),
          ),
        );
      });
      const connectTimer = setTimeout(
        () =>
          fail(
            new LlmUnavailableError(
              'connect-timeout',
              `The LLM is unavailable: could not connect to ${this.url.origin} within ${seconds(this.o.connectTimeoutMs)}; check the network, a firewall or proxy, and mnemo.llm.baseUrl.`,
            ),
          ),
        this.o.connectTimeoutMs,
      );
      req.on('socket', (socket) => {
        // A kept-alive socket is already connected: only the read timeout applies.
        if (!socket.connecting) return startRead();
        socket.once(this.isHttps ? 'secureConnect' : 'connect', startRead);
      });
      req.on('error', (e) => fail(this.networkError(e)));
      if (signal) signal.addEventListener('abort', onAbort, { once: true });
      req.end(body);
    });
  }

  private networkError(e: Error & { code?: string }): LlmUnavailableError {
    const code = e.code ?? '';
    const loopback = isLoopback(this.url.hostname);
    if (code === 'ECONNREFUSED') {
      return new LlmUnavailableError(
        'connect-refused',
        loopback
          ? `The LLM is unavailable: nothing is listening at ${this.url.origin} (connection refused); start the local model server (e.g. \`ollama serve\`) or fix mnemo.llm.baseUrl.`
          : `The LLM is unavailable: ${this.url.origin} refused the connection; check mnemo.llm.baseUrl.`,
        { cause: e },
      );
    }
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return new LlmUnavailableError(
        'dns',
        `The LLM is unavailable: the host ${this.url.hostname} could not be resolved; check mnemo.llm.baseUrl and the network.`,
        { cause: e },
      );
    }
    return new LlmUnavailableError(
      'network',
      `The LLM is unavailable: the connection to ${this.url.origin} failed (${code || e.message}); the server may have crashed or a proxy may be in the way.`,
      { cause: e },
    );
  }

  private statusError(a: RawAnswer, attempts: number): LlmUnavailableError {
    const detail = this.detail(a.text);
    const d = detail ? `: ${detail}` : '';
    const status = a.status;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    if (status === 401 || status === 403) {
      return new LlmUnavailableError(
        'auth',
        `The LLM is unavailable: ${this.where} rejected the API key (HTTP ${status}${d}); ${this.keyHint}.`,
        { status },
      );
    }
    if (status === 429) {
      return new LlmUnavailableError(
        'rate-limited',
        `The LLM is unavailable: ${this.where} is rate-limiting Mnemo (HTTP 429${d})${tries}; extraction resumes with a later session.`,
        { status },
      );
    }
    if (status >= 500) {
      return new LlmUnavailableError(
        'server-error',
        `The LLM is unavailable: ${this.where} failed with HTTP ${status}${d}${tries}.`,
        { status },
      );
    }
    if (status === 404) {
      return new LlmUnavailableError(
        'http',
        `The LLM is unavailable: ${this.where} answered HTTP 404${d}; check mnemo.llm.baseUrl (it usually ends in /v1) and the model "${this.o.model}".`,
        { status },
      );
    }
    return new LlmUnavailableError(
      'http',
      `The LLM is unavailable: ${this.where} refused the request (HTTP ${status}${d}); check mnemo.llm.model ("${this.o.model}").`,
      { status },
    );
  }

  /** The server's own error text, one line, short, without our key. */
  private detail(text: string): string {
    let msg = '';
    try {
      const j = JSON.parse(text) as { error?: unknown; message?: unknown };
      const e = j.error;
      if (typeof e === 'string') msg = e;
      else if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string')
        msg = (e as { message: string }).message;
      else if (typeof j.message === 'string') msg = j.message;
    } catch {
      msg = /<html/i.test(text) ? '' : text;
    }
    if (this.o.apiKey) msg = msg.split(this.o.apiKey).join('***');
    msg = msg
      .replace(/\s+/g, ' ')
      .replace(/[.。]+$/, '')
      .trim();
    return msg.length > 160 ? `${cutText(msg, 157)}...` : msg;
  }

  private parse(a: RawAnswer): LlmCompletion {
    let j: unknown;
    try {
      j = JSON.parse(a.text);
    } catch {
      throw new LlmUnavailableError(
        'bad-answer',
        `The LLM is unavailable: ${this.where} answered HTTP ${a.status} with something that is not JSON; is it an OpenAI-compatible endpoint?`,
      );
    }
    const root = (j ?? {}) as { choices?: unknown; usage?: unknown; model?: unknown; error?: unknown };
    const choice = Array.isArray(root.choices)
      ? (root.choices[0] as { message?: { content?: unknown } } | undefined)
      : undefined;
    const content = choice?.message?.content;
    let text: string | undefined;
    if (typeof content === 'string') text = content;
    else if (Array.isArray(content)) {
      // Some servers answer with content parts: [{ type: 'text', text: '...' }].
      text = content
        .map((p: unknown) =>
          typeof p === 'string'
            ? p
            : typeof (p as { text?: unknown })?.text === 'string'
              ? (p as { text: string }).text
              : '',
        )
        .join('');
    }
    if (text === undefined) {
      const detail = root.error ? this.detail(JSON.stringify({ error: root.error })) : '';
      throw new LlmUnavailableError(
        'bad-answer',
        `The LLM is unavailable: ${this.where} answered without choices[0].message.content${detail ? ` (${detail})` : ''}; is it an OpenAI-compatible chat-completions endpoint?`,
      );
    }
    const out: LlmCompletion = { text };
    const u = root.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
    if (u && typeof u === 'object') {
      const usage: LlmUsage = {
        prompt_tokens: nonNegInt(u.prompt_tokens),
        completion_tokens: nonNegInt(u.completion_tokens),
      };
      out.usage = usage;
    }
    if (typeof root.model === 'string') out.model = root.model;
    return out;
  }
}

// ------------------------------------------------------------------------------ helpers

function aborted(): LlmUnavailableError {
  return new LlmUnavailableError('aborted', 'The LLM call was cancelled.');
}

function nonNegInt(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0;
}

/** `1.5 s`, `300 ms`. */
export function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function failureLabel(err: unknown): string {
  if (err instanceof LlmUnavailableError)
    return err.status ? `HTTP ${err.status}` : err.reason.replace(/-/g, ' ');
  return 'unexpected error';
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(v: string | string[] | undefined, nowMs: number): number | undefined {
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  if (!s) return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const at = Date.parse(s);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
