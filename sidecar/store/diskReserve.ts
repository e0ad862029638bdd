/**
 * A reserve of disk space in the data folder, so that a full disk still lets the store open for reading.
 * Chroma's SQLite needs a few pages to open its database ("database or disk is full" otherwise), so on a
 * disk with no space left even `mnemo list` and `recall` failed. Mnemo keeps `reserve` (1 MiB of zeros)
 * while there is room; before Chroma starts on a disk with less than {@link LOW_BYTES} free it removes the
 * file, and Chroma opens in the space it frees. The reserve comes back at a start with room to spare. It
 * is the emergency ballast file CockroachDB keeps in its store for the same reason.
 */
import { existsSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const RESERVE_BYTES = 1024 * 1024;
/** Below this much free space the reserve is released before the store starts. */
const LOW_BYTES = 256 * 1024;
/** The reserve is made again only when this much is free: it never takes a nearly full disk's last space. */
const REMAKE_BYTES = 64 * 1024 * 1024;

export function reserveFile(dataDir: string): string {
  return join(dataDir, 'reserve');
}

function freeBytes(dir: string): number | undefined {
  try {
    const st = statfsSync(dir);
    return st.bavail * st.bsize;
  } catch {
    return undefined; // no statfs here: leave the reserve as it is
  }
}

/**
 * Before the store starts: releases the reserve when the disk is (nearly) full, makes it when there is room
 * and it is missing. Never throws: the reserve helps, it is not needed. Returns what it did, for the log.
 */
export function balanceReserve(dataDir: string): 'released' | 'made' | undefined {
  const file = reserveFile(dataDir);
  const free = freeBytes(dataDir);
  if (free === undefined) return undefined;
  try {
    if (free < LOW_BYTES) {
      if (!existsSync(file)) return undefined;
      rmSync(file, { force: true });
      return 'released';
    }
    if (free < REMAKE_BYTES || existsSync(file)) return undefined;
    writeFileSync(file, Buffer.alloc(RESERVE_BYTES), { mode: 0o600, flag: 'wx' });
    return 'made';
  } catch {
    rmSync(file, { force: true }); // a reserve cut short by a disk filling meanwhile is no reserve
    return undefined;
  }
}
