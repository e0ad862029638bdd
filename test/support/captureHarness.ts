/**
 * The capture runner (sidecar/capture/capture.ts) against a temporary home and data folder, with the queue
 * replaced by a list: what a capture would send to the ingest path, without Chroma or the model.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scopeFor, sourceEnv, TranscriptCapture } from '../../sidecar/capture/capture';
import { emptyPrefs } from '../../sidecar/capture/prefs';
import type { CaptureScope } from '../../sidecar/capture/scope';
import type { SourceEnv } from '../../sidecar/capture/types';
import type { SessionInput } from '../../sidecar/protocol';
import type { CaptureSourceId } from '../../sidecar/shared/agentSources';

export interface Harness {
  home: string;
  dataDir: string;
  sent: SessionInput[];
  /** Whether each sent session was queued as a conversation going on (learned before older captures). */
  live: boolean[];
  capture: TranscriptCapture;
  env: SourceEnv;
  scope: CaptureScope;
  /** The clock the runner reads (settable: "now"). */
  now: { ms: number };
  /** Discovers and captures every in-scope file of the sources; returns the sessions sent by this run. */
  run(sources: CaptureSourceId[], opts?: { final?: boolean }): Promise<SessionInput[]>;
  cleanup(): void;
}

export function captureHarness(folders: string[], extraEnv: NodeJS.ProcessEnv = {}): Harness {
  const home = mkdtempSync(join(tmpdir(), 'mnemo-home-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-data-'));
  const sent: SessionInput[] = [];
  const live: boolean[] = [];
  const now = { ms: Date.UTC(2030, 0, 1) }; // far after the fixtures' files were written: they are finished sessions
  let n = 0;
  const capture = new TranscriptCapture({
    dataDir,
    enqueue: async (s, o) => {
      sent.push(s);
      live.push(o?.live === true);
      return { queue_id: `q${++n}`, redactions: 0 };
    },
    clock: () => new Date(now.ms),
    log: { info: () => undefined, warn: () => undefined },
  });
  const env = sourceEnv(folders, {}, { HOME: home, ...extraEnv });
  const scope = scopeFor(folders, emptyPrefs());
  return {
    home,
    dataDir,
    sent,
    live,
    capture,
    env,
    scope,
    now,
    async run(sources, opts = {}) {
      const before = sent.length;
      const { files } = await capture.discover(env, sources, scope);
      for (const f of files) await capture.captureFile(f, scope, opts);
      return sent.slice(before);
    },
    cleanup() {
      rmSync(home, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every message of the chat sessions, as `role: text` (speaker for the agent). */
export function chatLines(sessions: SessionInput[]): string[] {
  return sessions
    .filter((s) => s.source_type === 'chat')
    .flatMap((s) => s.messages.map((m) => `${m.name ?? m.role}: ${m.content}`));
}
