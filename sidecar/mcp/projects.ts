/**
 * Which projects an MCP client works in: the folders of its MCP roots (`roots/list`), else the server's
 * working folder, each mapped to a project id exactly as the extension maps workspace folders
 * (sidecar/project.ts). Recall, search and reads are confined to these projects plus global — the same
 * isolation as recall in the editor. `--project` / MNEMO_PROJECT pin one project instead.
 */
import { fileURLToPath } from 'node:url';
import { projectIdFor } from '../project';

export interface McpProjects {
  /** Every project of the client's roots, first root first. */
  ids: string[];
  /** Where remember and import write: the first root's project. */
  primary: string;
  /** Where the ids came from, for error messages and the audit log. */
  from: 'roots' | 'cwd' | 'pinned';
  /** The root folders (or the working folder). */
  folders: string[];
}

/** Folders of MCP root URIs (only `file:` roots name a folder; others are ignored). */
export function rootFolders(roots: { uri: string }[]): string[] {
  const out: string[] = [];
  for (const r of roots) {
    if (typeof r?.uri !== 'string' || !r.uri.startsWith('file:')) continue;
    try {
      out.push(fileURLToPath(r.uri));
    } catch {
      // a malformed file URI names no folder
    }
  }
  return out;
}

export function resolveProjects(opts: {
  pinned?: string;
  roots?: { uri: string }[];
  cwd: string;
}): McpProjects {
  if (opts.pinned) return { ids: [opts.pinned], primary: opts.pinned, from: 'pinned', folders: [opts.cwd] };
  const folders = rootFolders(opts.roots ?? []);
  if (folders.length > 0) {
    const ids = [...new Set(folders.map((f) => projectIdFor(f)))];
    return { ids, primary: ids[0]!, from: 'roots', folders };
  }
  const id = projectIdFor(opts.cwd);
  return { ids: [id], primary: id, from: 'cwd', folders: [opts.cwd] };
}
