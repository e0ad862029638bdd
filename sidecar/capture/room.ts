/**
 * The room of agent capture, against the `Core`: which agents' transcripts exist for the folders
 * (`mnemo/sources/list`, reading no message), capturing them with the person's consent
 * (`mnemo/sources/capture`: every session of the folders, or one transcript; progress, cancellable, one
 * summary per agent with what the pipeline made of it), and the window's settings
 * (`mnemo/sources/configure`: saved for the CLI and hooks, and the enabled agents watched in the
 * background). Everything read goes through the capture queue (ingest/capture.ts), as every capture does.
 */
import { basename, resolve } from 'node:path';
import type { Core } from '../core';
import { CancelledError, InvalidInputError } from '../shared/errors';
import type { CaptureWorker } from '../ingest/capture';
import type {
  IngestReport,
  SourceCaptureSummary,
  SourcesCaptureParams,
  SourcesCaptureResult,
  SourcesConfigureParams,
  SourcesListResult,
  SourcesParams,
  SourceSummary,
} from '../protocol';
import {
  CAPTURE_SOURCE_LABEL,
  CAPTURE_SOURCES,
  isCaptureSource,
  SOURCE_SETTING_KEY,
  type CaptureSourceId,
} from '../shared/agentSources';
import {
  addOutcome,
  emptyTotals,
  scopeFor,
  sourceEnv,
  TranscriptCapture,
  type SourceTotals,
} from './capture';
import { writePrefs } from './prefs';
import { summaryLine } from '../shared/captureSummary';
import { within } from './scope';
import type { TranscriptFile } from './types';
import { CaptureWatcher } from './watch';

/**
 * Captures waiting in the queue before a capture reads more files (bounds memory on a large backfill); it
 * reads on once half of them are learned, so the capture worker always has the next captures to prepare
 * (waiting for an empty queue left its pipeline idle between every batch of files).
 */
const MAX_AHEAD = 32;

/** How a capture request reports progress and is cancelled. */
export interface CaptureRun {
  onProgress?: (p: { message: string; percent?: number }) => void;
  token?: { isCancellationRequested: boolean };
}

/** Agents whose transcript format Mnemo could not check against their source (docs/capture.md). */
const UNVERIFIED: Partial<Record<CaptureSourceId, string>> = {
  'copilot-cli': 'Copilot CLI is closed source: its event names are read as documented by third parties.',
  cursor: 'Cursor is closed source: its store is read only when Cursor is not writing it.',
};

export class AgentCapture {
  readonly runner: TranscriptCapture;
  private readonly watcher: CaptureWatcher;
  /** Sources a request is capturing now (the watcher leaves them alone). */
  private readonly busy = new Map<CaptureSourceId, number>();

  constructor(
    private readonly core: Core,
    private readonly worker: CaptureWorker,
    /** The queue is processed in the background (the sidecar), not by flushing it (the CLI). */
    private readonly background: boolean,
  ) {
    this.runner = new TranscriptCapture({
      dataDir: core.config.dataDir,
      enqueue: (s, o) => worker.capture(s, o),
      clock: core.clock,
      log: core.log,
    });
    this.watcher = new CaptureWatcher(this.runner, {
      log: core.log,
      busy: (s) => (this.busy.get(s) ?? 0) > 0,
      clock: core.clock,
    });
  }

  dispose(): void {
    this.watcher.stop();
  }

  private sourcesOf(ids: readonly unknown[] | undefined): CaptureSourceId[] {
    if (!Array.isArray(ids)) throw new InvalidInputError('Name the agents to capture ("sources").');
    const bad = ids.filter((s) => !isCaptureSource(s));
    if (bad.length)
      throw new InvalidInputError(
        `Unknown agent "${String(bad[0])}": use one of ${CAPTURE_SOURCES.join(', ')}.`,
      );
    return [...new Set(ids as CaptureSourceId[])];
  }

  private folders(p: SourcesParams): string[] {
    return foldersOf(p);
  }

  list(p: SourcesParams): Promise<SourcesListResult> {
    return listSources(this.runner, this.folders(p), p.editor);
  }

  /** The transcript file a path names: found by the agents' own discovery, else read as the first named agent's. */
  private async transcriptFile(
    path: string,
    sources: CaptureSourceId[],
    p: SourcesParams,
  ): Promise<TranscriptFile> {
    const abs = resolve(path);
    const env = sourceEnv([], p.editor);
    for (const id of sources) {
      const a = this.runner.adapter(id);
      if (!a.roots(env).some((r) => within(abs, r))) continue;
      const f = (await a.discover(env)).find((x) => x.path === abs);
      if (f) return f;
    }
    return {
      source: sources[0]!,
      path: abs,
      sessionId: basename(abs).replace(/\.jsonl?$/, ''),
      appendOnly: abs.endsWith('.jsonl'),
    };
  }

  async capture(p: SourcesCaptureParams, run: CaptureRun = {}): Promise<SourcesCaptureResult> {
    const { onProgress, token } = run;
    const sources = this.sourcesOf(p?.sources);
    if (sources.length === 0) throw new InvalidInputError('Name at least one agent to capture.');
    const folders = p.transcript ? [] : this.folders(p);
    const env = sourceEnv(folders, p.editor);
    const prefs = this.runner.prefs();
    const scope = scopeFor(folders, prefs, !!p.transcript);
    const totals = new Map(sources.map((id) => [id, emptyTotals(id)]));
    const reports = new Map<string, IngestReport | undefined>();
    const stop = this.worker.onProcessed((id, report) => reports.set(id, report));
    for (const s of sources) this.busy.set(s, (this.busy.get(s) ?? 0) + 1);
    let cancelled = false;
    try {
      const files = p.transcript
        ? [await this.transcriptFile(p.transcript, sources, p)]
        : (await this.runner.discover(env, sources, scope)).files;
      for (let i = 0; i < files.length; i++) {
        if (token?.isCancellationRequested || this.core.disposed) {
          cancelled = true;
          break;
        }
        const f = files[i]!;
        const outcome = await this.runner.captureFile(f, scope, { final: p.final === true });
        addOutcome(totals.get(f.source) ?? emptyTotals(f.source), f.path, outcome);
        onProgress?.({
          message: `${CAPTURE_SOURCE_LABEL[f.source]}: ${i + 1} of ${files.length} sessions read`,
          percent: Math.round(((i + 1) / files.length) * 90),
        });
        if (this.worker.queued > MAX_AHEAD) await this.worker.flush(10 * 60_000, MAX_AHEAD / 2);
      }
      onProgress?.({ message: 'Learning from what was read…', percent: 95 });
      await this.settle(
        [...totals.values()].flatMap((t) => t.queueIds),
        reports,
        token,
      );
    } catch (e) {
      if (e instanceof CancelledError) cancelled = true;
      else throw e;
    } finally {
      stop();
      for (const s of sources) this.busy.set(s, (this.busy.get(s) ?? 1) - 1);
    }
    const summaries = [...totals.values()].map((t) => this.summary(t, reports));
    for (const s of summaries) if (s.messages || s.skipped) this.core.log.info(summaryLine(s));
    return { sources: summaries, ...(cancelled ? { cancelled } : {}) };
  }

  /** Waits until every queued capture of this request was processed (the CLI processes them itself). */
  private async settle(
    ids: string[],
    reports: Map<string, unknown>,
    token?: CaptureRun['token'],
  ): Promise<void> {
    const open = () => ids.some((id) => !reports.has(id));
    if (!this.background) {
      await this.worker.flush(24 * 3_600_000);
      return;
    }
    while (open() && !this.core.disposed) {
      if (token?.isCancellationRequested)
        throw new CancelledError('Capture cancelled; what was read is still being learned.');
      // No model (or a store built with another one): the captures wait in the queue for it, durably.
      if (this.core.model.state === 'error' || this.core.model.mismatchMessage) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private summary(t: SourceTotals, reports: Map<string, IngestReport | undefined>): SourceCaptureSummary {
    const out: SourceCaptureSummary = {
      id: t.id,
      label: CAPTURE_SOURCE_LABEL[t.id],
      sessions: t.sessions,
      messages: t.messages,
      stored: 0,
      refreshed: 0,
      pending: 0,
      dropped: 0,
      skipped: t.skipped,
      injected: t.injected,
      problems: t.problems,
      projects: t.projects,
      queued: 0,
    };
    for (const id of t.queueIds) {
      if (!reports.has(id)) out.queued++;
      const r = reports.get(id);
      if (!r) continue;
      out.stored += r.stored;
      out.refreshed += r.refreshed;
      out.pending += r.pending;
      out.dropped += r.dropped;
    }
    return out;
  }

  /** Saves the window's settings (for the CLI and hooks) and watches the enabled agents for its folders. */
  configure(p: SourcesConfigureParams): { watching: number } {
    const folders = this.folders(p);
    const enabled: Partial<Record<CaptureSourceId, boolean>> = {};
    for (const [k, v] of Object.entries(p.enabled ?? {})) {
      // The setting's keys (claudeCode) or the ids (claude-code).
      const id = isCaptureSource(k) ? k : CAPTURE_SOURCES.find((s) => SOURCE_SETTING_KEY[s] === k);
      if (id && typeof v === 'boolean') enabled[id] = v;
    }
    const globs = Array.isArray(p.exclude_globs) ? p.exclude_globs.filter((g) => typeof g === 'string') : [];
    const prefs = writePrefs(
      this.core.config.dataDir,
      { sources: enabled, excludeGlobs: globs, folders, paused: !!p.paused },
      this.core.now(),
    );
    const on = CAPTURE_SOURCES.filter((s) => prefs.sources[s] === true);
    const watching = p.paused
      ? 0
      : this.watcher.update({
          env: sourceEnv(folders, p.editor),
          scope: scopeFor(folders, prefs),
          sources: on,
        });
    if (p.paused) this.watcher.update(undefined);
    return { watching };
  }
}

/** The folders of a request, checked and absolute. */
export function foldersOf(p: SourcesParams): string[] {
  if (!p || !Array.isArray(p.folders) || p.folders.some((f) => typeof f !== 'string'))
    throw new InvalidInputError('"folders" must be a list of folder paths.');
  return p.folders.map((f) => resolve(f));
}

/** The agents found for these folders, with their counts and what was learned from each (no message read). */
export async function listSources(
  runner: TranscriptCapture,
  folders: string[],
  editor?: SourcesParams['editor'],
): Promise<SourcesListResult> {
  const env = sourceEnv(folders, editor);
  const prefs = runner.prefs();
  const scope = scopeFor(folders, prefs);
  const ids = runner.adapters.map((a) => a.id);
  const { files, other, found } = await runner.discover(env, ids, scope);
  return {
    sources: ids.map((id): SourceSummary => {
      const cursors = runner.cursors.all(id);
      const learned = cursors.filter((c) => c.messages > 0);
      const last = learned
        .map((c) => c.capturedAt ?? '')
        .sort()
        .at(-1);
      return {
        id,
        label: CAPTURE_SOURCE_LABEL[id],
        detected: (found.get(id) ?? 0) > 0,
        sessions: files.filter((f) => f.source === id).length,
        other_sessions: other.get(id) ?? 0,
        ...(prefs.sources[id] !== undefined ? { enabled: prefs.sources[id] } : {}),
        ...(last ? { last_capture_at: last } : {}),
        captured_sessions: learned.length,
        captured_messages: learned.reduce((n, c) => n + c.messages, 0),
        locations: runner.adapter(id).roots(env),
        ...(UNVERIFIED[id] ? { note: UNVERIFIED[id] } : {}),
      };
    }),
  };
}
