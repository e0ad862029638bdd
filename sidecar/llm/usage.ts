/**
 * LLM token accounting: a small durable counter, `<dataDir>/llm-usage.json`, updated after every
 * extraction and shown by `mnemo stats` and the output channel. Each update re-reads the file (the
 * CLI and the sidecar may share a data folder) and replaces it atomically (write + rename), so a
 * crash never leaves half a file; a concurrent update from another process can at worst be lost.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { replaceFile } from '../shared/atomicFile';
import { dirname, join } from 'node:path';
import type { LlmUsage } from './types';

export interface LlmUsageTotals {
  /** Prompt tokens since the data folder was created. */
  prompt: number;
  /** Completion tokens. */
  completion: number;
  /** Extraction runs that called the model (successful or not). */
  extractions: number;
  /** Runs that ended with an error (the model was unavailable or its answer unreadable). */
  failures: number;
  /** Some of the tokens are estimates (vscode-lm reports none). */
  estimated?: boolean;
  /** The most recent failure: when (UTC ISO-8601) and the one-sentence reason. */
  last_error?: { at: string; message: string };
  /** UTC ISO-8601 of the last update. */
  updated_at?: string;
}

export const LLM_USAGE_FILE = 'llm-usage.json';

const EMPTY: LlmUsageTotals = { prompt: 0, completion: 0, extractions: 0, failures: 0 };

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
}

export class LlmUsageCounter {
  readonly file: string;

  constructor(
    dataDir: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.file = join(dataDir, LLM_USAGE_FILE);
  }

  /** The totals; zeros when the file is missing or unreadable (it is a counter, not a record). */
  read(): LlmUsageTotals {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      return { ...EMPTY };
    }
    const r = (raw ?? {}) as Record<string, unknown>;
    const out: LlmUsageTotals = {
      prompt: count(r.prompt),
      completion: count(r.completion),
      extractions: count(r.extractions),
      failures: count(r.failures),
    };
    if (r.estimated === true) out.estimated = true;
    const le = r.last_error as { at?: unknown; message?: unknown } | undefined;
    if (le && typeof le.at === 'string' && typeof le.message === 'string')
      out.last_error = { at: le.at, message: le.message };
    if (typeof r.updated_at === 'string') out.updated_at = r.updated_at;
    return out;
  }

  /** Adds one extraction run; returns the new totals. Never throws (accounting must not break ingest). */
  record(run: { usage?: LlmUsage; error?: string }): LlmUsageTotals {
    const t = this.read();
    const now = this.clock().toISOString();
    t.prompt += count(run.usage?.prompt_tokens);
    t.completion += count(run.usage?.completion_tokens);
    t.extractions += 1;
    if (run.usage?.estimated) t.estimated = true;
    if (run.error) {
      t.failures += 1;
      t.last_error = { at: now, message: run.error };
    }
    t.updated_at = now;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      replaceFile(this.file, JSON.stringify(t, null, 2) + '\n');
    } catch {
      // a full disk must not stop learning; the counter is advisory
    }
    return t;
  }

  /** One line for the output channel / `mnemo stats`. */
  static describe(t: LlmUsageTotals): string {
    const est = t.estimated ? ' (partly estimated)' : '';
    const fail = t.failures
      ? `, ${t.failures} failed${t.last_error ? ` (last ${t.last_error.at}: ${t.last_error.message})` : ''}`
      : '';
    return `LLM: ${t.extractions} extraction(s), ${t.prompt} prompt + ${t.completion} completion tokens${est}${fail}`;
  }
}
