/**
 * The editor's capture settings as the sidecar last received them (`mnemo/sources/settings`), kept in the
 * data folder (`capture/preferences.json`, 0600) so that the CLI and the agents' hooks — which run while the
 * editor is closed — honour them too: a source the user switched off, the exclusion globs, and the folders
 * whose window paused capture. The settings themselves live in VS Code (`mnemo.capture.*`); this is their
 * copy for headless runs, never edited by hand.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isCaptureSource, type CaptureSourceId } from '../shared/agentSources';
import { replaceFile } from '../shared/atomicFile';

export interface CapturePrefs {
  /** The user's answer per source: true on, false off; absent when never asked. */
  sources: Partial<Record<CaptureSourceId, boolean>>;
  excludeGlobs: string[];
  /** Folder -> paused (the window showing that folder paused capture). */
  paused: Record<string, boolean>;
  updatedAt?: string;
}

export function emptyPrefs(): CapturePrefs {
  return { sources: {}, excludeGlobs: [], paused: {} };
}

function file(dataDir: string): string {
  return join(dataDir, 'capture', 'preferences.json');
}

export function readPrefs(dataDir: string): CapturePrefs {
  try {
    const raw = JSON.parse(readFileSync(file(dataDir), 'utf8')) as Partial<CapturePrefs>;
    const sources: CapturePrefs['sources'] = {};
    for (const [k, v] of Object.entries(raw.sources ?? {}))
      if (isCaptureSource(k) && typeof v === 'boolean') sources[k] = v;
    return {
      sources,
      excludeGlobs: Array.isArray(raw.excludeGlobs)
        ? raw.excludeGlobs.filter((g) => typeof g === 'string')
        : [],
      paused: raw.paused && typeof raw.paused === 'object' ? raw.paused : {},
      ...(typeof raw.updatedAt === 'string' ? { updatedAt: raw.updatedAt } : {}),
    };
  } catch {
    return emptyPrefs();
  }
}

/** Records an editor window's settings: its sources and globs, and whether capture is paused for its folders. */
export function writePrefs(
  dataDir: string,
  update: {
    sources: Partial<Record<CaptureSourceId, boolean>>;
    excludeGlobs: string[];
    folders: string[];
    paused: boolean;
  },
  now: string,
): CapturePrefs {
  const prev = readPrefs(dataDir);
  const paused = { ...prev.paused };
  for (const f of update.folders) {
    const key = resolve(f);
    if (update.paused) paused[key] = true;
    else delete paused[key];
  }
  const next: CapturePrefs = {
    sources: { ...update.sources },
    excludeGlobs: update.excludeGlobs,
    paused,
    updatedAt: now,
  };
  mkdirSync(join(dataDir, 'capture'), { recursive: true, mode: 0o700 });
  replaceFile(file(dataDir), JSON.stringify(next, null, 2));
  return next;
}

export function pausedFolders(p: CapturePrefs): string[] {
  return Object.entries(p.paused)
    .filter(([, v]) => v)
    .map(([k]) => k);
}
