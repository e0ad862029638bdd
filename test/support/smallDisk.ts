/**
 * A real, small file system for disk-full tests: a tmpfs of the given size (root, `mount -t tmpfs`), else
 * an ext4 image on a loop device. `mountSmallDisk` returns undefined with the reason when neither can be
 * mounted here, and the test skips with that reason; it never fakes a full disk.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  kind: 'tmpfs' | 'loop';
  /** Fills the disk until at most `leaveBytes` are free (a filler file `fill-<n>`); returns its path. */
  fill(leaveBytes?: number): string;
  unmount(): void;
}

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

function freeBytes(dir: string): number {
  const out = run('df', ['-B1', '--output=avail', dir]).trim().split('\n');
  return Number(out[out.length - 1]);
}

let fills = 0;

function disk(dir: string, kind: SmallDisk['kind'], cleanup: () => void): SmallDisk {
  return {
    dir,
    kind,
    fill(leaveBytes = 0) {
      const file = join(dir, `fill-${fills++}`);
      const size = Math.max(0, freeBytes(dir) - leaveBytes);
      try {
        writeFileSync(file, Buffer.alloc(size));
      } catch {
        // the last block may not fit: the disk is as full as it gets
      }
      return file;
    },
    unmount: cleanup,
  };
}

/** Mounts a small file system of `bytes` (rounded to whole pages); undefined + reason when impossible here. */
export function mountSmallDisk(bytes: number): SmallDisk | { skip: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-smalldisk-'));
  const reasons: string[] = [];
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir]);
    return disk(dir, 'tmpfs', () => {
      run('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    });
  } catch (e) {
    reasons.push(
      `tmpfs: ${
        String((e as { stderr?: Buffer }).stderr ?? e)
          .trim()
          .split('\n')[0]
      }`,
    );
  }
  const image = `${dir}.img`;
  try {
    writeFileSync(image, Buffer.alloc(Math.max(bytes, 2 << 20)));
    run('mkfs.ext4', ['-q', '-F', image]);
    run('mount', ['-o', 'loop', image, dir]);
    return disk(dir, 'loop', () => {
      run('umount', ['-l', dir]);
      rmSync(image, { force: true });
      rmSync(dir, { recursive: true, force: true });
    });
  } catch (e) {
    reasons.push(
      `loop device: ${
        String((e as { stderr?: Buffer }).stderr ?? e)
          .trim()
          .split('\n')[0]
      }`,
    );
  }
  rmSync(image, { force: true });
  rmSync(dir, { recursive: true, force: true });
  return { skip: `cannot mount a small disk here (needs root: ${reasons.join('; ')})` };
}
