/**
 * Which projects an MCP client works in: the folders of its MCP roots (`roots/list`), else the server's
 * working folder, each mapped to a project id exactly as the extension maps workspace folders
 * (sidecar/shared/project.ts). Recall, search and reads are confined to these projects plus global — the same
 * isolation as recall in the editor. `--project` / MNEMO_PROJECT pin one project instead (never global).
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../shared/errors';
import { GLOBAL_PROJECT } from '../model';
import { projectIdFor } from '../shared/project';

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

/** True when `folder` is an existing folder (following links: a workspace may be reached through one). */
function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The projects of an MCP client: `pinned` (`--project`, MNEMO_PROJECT), else the folders of its `roots`
 * (when it has the roots capability: `roots` is then the list it gave, maybe empty), else `cwd`. Only an
 * existing folder counts as a root. Never global: a pinned `global` is refused (memories reach global only
 * by promotion), and no folder maps to it (sidecar/shared/project.ts). A client whose roots name no existing
 * folder gets an error, never the working folder's project in their place.
 */
export function resolveProjects(opts: {
  pinned?: string;
  roots?: { uri: string }[];
  cwd: string;
}): McpProjects {
  if (opts.pinned) {
    if (opts.pinned.trim().toLowerCase() === GLOBAL_PROJECT)
      throw new InvalidInputError(
        'The MCP server cannot work in the global project: memories reach global only by promotion; pin a project of your own.',
      );
    return { ids: [opts.pinned], primary: opts.pinned, from: 'pinned', folders: [opts.cwd] };
  }
  if (opts.roots) {
    const named = rootFolders(opts.roots);
    const folders = named.filter(isFolder);
    if (folders.length === 0)
      throw new InvalidInputError(
        opts.roots.length === 0
          ? 'This client lists no workspace folder (MCP roots), so Mnemo cannot tell which project it works in; open a folder, or start mnemo mcp with --project P.'
          : `None of this client's MCP roots is an existing folder (${opts.roots.length} given), so Mnemo cannot tell which project it works in; open a folder, or start mnemo mcp with --project P.`,
      );
    const ids = [...new Set(folders.map((f) => projectIdFor(f)))];
    return { ids, primary: ids[0]!, from: 'roots', folders };
  }
  const id = projectIdFor(opts.cwd);
  return { ids: [id], primary: id, from: 'cwd', folders: [opts.cwd] };
}
