/**
 * `store.json` in the data folder: which Chroma collection (embedding model + dimension) is active, so a
 * collection never mixes models. Every Mnemo process on the data folder reads it; the first model ever used
 * claims it, and re-embedding switches it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileOnce, replaceFile } from '../shared/atomicFile';

export interface ActiveCollection {
  name: string;
  model: string;
  dim: number;
}

/** Chroma collection name for a model id and dimension: 3..63 chars of [a-z0-9_-]. */
export function collectionNameFor(model: string, dim: number): string {
  const slug = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `mnemo_${slug}_${dim}`;
}

export class StoreState {
  readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'store.json');
  }

  /** The active collection on disk; undefined when none was chosen yet (or the file is unreadable). */
  read(): ActiveCollection | undefined {
    try {
      const active = (JSON.parse(readFileSync(this.file, 'utf8')) as { active?: ActiveCollection }).active;
      return active && typeof active.name === 'string' ? active : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The active collection, `wanted` when none was chosen yet. Two processes starting on a fresh data folder
   * at once (two agents, two CLIs) both end with the one that was written first, never a torn or missing
   * file; a damaged file is replaced.
   */
  claim(wanted: ActiveCollection): ActiveCollection {
    if (createFileOnce(this.file, render(wanted))) return wanted;
    const active = this.read();
    if (active) return active;
    replaceFile(this.file, render(wanted));
    return wanted;
  }

  /** Makes `info` the active collection (after a complete re-embed). */
  switchTo(info: ActiveCollection): void {
    replaceFile(this.file, render(info));
  }
}

function render(info: ActiveCollection): string {
  return JSON.stringify({ active: info }, null, 2);
}
