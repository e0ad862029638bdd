/**
 * Which sessions a capture may read, and into which project each goes. A session belongs to the project
 * of its working folder, by the identity the tree and the CLI use (sidecar/shared/project.ts: the git remote,
 * else the folder): a folder being captured for gives its own project to the sessions inside it; any
 * other folder gives its own. Exclusion globs (`mnemo.capture.excludeGlobs`) and paused folders keep a
 * session out whatever else is asked.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { minimatch } from 'minimatch';
import { projectIdFor } from '../shared/project';

export interface CaptureScope {
  /** The folders captured for (workspace folders, or the CLI's current folder), absolute. */
  folders: string[];
  /** Sessions of any folder (an explicit transcript, a hook): each still goes to its own folder's project. */
  anyFolder: boolean;
  /** Globs of working folders never read (`**\/clients/**`). */
  excludeGlobs: string[];
  /** Folders where capture is paused (Pause Capture in their editor window). */
  pausedFolders: string[];
}

/** True when `child` is `parent` or inside it. */
export function within(child: string, parent: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/** The glob that keeps `cwd` out, if any (matched against the folder and everything inside it). */
export function excludedBy(cwd: string, globs: readonly string[]): string | undefined {
  const path = resolve(cwd).split(sep).join('/');
  return globs.find(
    (g) => g.trim() && (minimatch(path, g, { dot: true }) || minimatch(`${path}/`, g, { dot: true })),
  );
}

export type Placement =
  | { ok: true; projectId: string; folder?: string }
  | { ok: false; reason: string; outOfScope?: boolean };

const projectCache = new Map<string, string>();

function projectOf(folder: string): string {
  let id = projectCache.get(folder);
  if (!id) {
    id = projectIdFor(folder);
    projectCache.set(folder, id);
  }
  return id;
}

/**
 * Where a session with this working folder goes: the project of the captured folder holding it (the
 * tree's identity for that folder), else — when any folder may be captured — its own folder's project.
 */
export function place(cwd: string | undefined, scope: CaptureScope): Placement {
  // Never guessed: a session whose folder is unknown could belong to any project.
  if (!cwd) return { ok: false, reason: 'the transcript records no working folder' };
  const glob = excludedBy(cwd, scope.excludeGlobs);
  if (glob) return { ok: false, reason: `its folder is excluded by "${glob}"` };
  if (scope.pausedFolders.some((p) => within(cwd, p)))
    return { ok: false, reason: 'capture is paused for its folder' };
  // The deepest captured folder holding it (nested workspace folders).
  const holder = scope.folders.filter((f) => within(cwd, f)).sort((a, b) => b.length - a.length)[0];
  if (holder) return { ok: true, projectId: projectOf(holder), folder: holder };
  if (!scope.anyFolder) return { ok: false, reason: 'another folder', outOfScope: true };
  return { ok: true, projectId: projectOf(cwd) };
}
