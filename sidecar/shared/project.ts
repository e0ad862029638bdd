/**
 * Project identity: a workspace folder maps to a stable project_id — the normalized git remote when
 * there is one (`github.com/acme/plc-gateway`), else the folder name plus a short hash of its path
 * (`plc-gateway-3f9a1c`). Shared by the extension and the CLI; no `vscode` import.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { GLOBAL_PROJECT } from '../model';

/** `git@github.com:Acme/Repo.git`, `https://user:pw@github.com/acme/repo` -> `github.com/acme/repo`. */
export function normalizeRemote(url: string): string {
  let u = url.trim();
  const scp = /^(?:[\w.-]+@)?([\w.-]+):(?!\/\/)(.+)$/.exec(u);
  if (scp && !/^[a-z]+:\/\//i.test(u)) {
    u = `${scp[1]}/${scp[2]}`;
  } else {
    u = u.replace(/^[a-z+]+:\/\//i, '').replace(/^[^@/]*@/, '');
  }
  u = u
    .replace(/:\d+(?=\/)/, '')
    .replace(/\.git$/i, '')
    .replace(/\/+$/, '');
  return u.toLowerCase();
}

function findGitDir(folder: string): string | undefined {
  let dir = resolve(folder);
  for (let i = 0; i < 40; i++) {
    const candidate = join(dir, '.git');
    if (existsSync(candidate)) {
      try {
        if (statSync(candidate).isDirectory()) return candidate;
        // worktree / submodule: "gitdir: <path>"
        const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(candidate, 'utf8'));
        if (m) return resolve(dir, m[1].trim());
      } catch {
        return undefined;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** The `origin` remote URL (or the first remote) of the repository containing `folder`. */
export function gitRemoteOf(folder: string): string | undefined {
  const gitDir = findGitDir(folder);
  if (!gitDir) return undefined;
  let configPath = join(gitDir, 'config');
  if (!existsSync(configPath)) {
    const common = join(gitDir, 'commondir');
    if (existsSync(common)) configPath = join(resolve(gitDir, readFileSync(common, 'utf8').trim()), 'config');
  }
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch {
    return undefined;
  }
  const remotes = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const section = /^\s*\[remote\s+"([^"]+)"\]\s*$/.exec(line);
    if (section) {
      current = section[1];
      continue;
    }
    if (/^\s*\[/.test(line)) {
      current = undefined;
      continue;
    }
    const kv = /^\s*url\s*=\s*(.+?)\s*$/.exec(line);
    if (current && kv && !remotes.has(current)) remotes.set(current, kv[1]);
  }
  return remotes.get('origin') ?? remotes.values().next().value;
}

/**
 * Stable project id for a folder. Never `global`: a repository whose remote is literally named `global`
 * (or normalizes to it) gets the id of its folder instead, so no folder maps to the project every other
 * one recalls.
 */
export function projectIdFor(folder: string): string {
  const remote = gitRemoteOf(folder);
  const fromRemote = remote ? normalizeRemote(remote) : '';
  if (fromRemote && fromRemote !== GLOBAL_PROJECT) return fromRemote;
  const abs = resolve(folder);
  const name =
    basename(abs)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}._-]+/gu, '-') || 'root';
  const hash = createHash('sha256').update(abs).digest('hex').slice(0, 6);
  return `${name}-${hash}`;
}
