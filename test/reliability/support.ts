/** Shared bits of the reliability suite: real CLI runs with a bound, and a scan for Chroma servers. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_JS, TEST_MODEL, testModelPath } from '../support/sidecarSession';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  hung: boolean;
}

/** Runs `mnemo` on a data folder; kills it and reports `hung` when it has not exited within `boundMs`. */
export function cli(
  dataDir: string,
  args: string[],
  opts: { boundMs?: number; input?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI_JS, ...args], {
      env: {
        ...process.env,
        MNEMO_DATA_DIR: dataDir,
        MNEMO_EMBEDDING_MODEL: TEST_MODEL,
        MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
        MNEMO_DEBUG: '',
        ...opts.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.stdin.end(opts.input ?? '');
    let hung = false;
    const t = setTimeout(() => {
      hung = true;
      p.kill('SIGKILL');
    }, opts.boundMs ?? 45_000);
    p.once('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr, hung });
    });
  });
}

/**
 * Sends `signal` and waits for the process to exit (SIGKILL after `boundMs`): a test removes a data folder
 * only after the server that writes into it has stopped (a server still shutting down wrote its state while
 * the folder was being removed, and the removal failed with ENOTEMPTY).
 */
export async function terminate(
  p: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  boundMs = 30_000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }> {
  if (p.exitCode !== null || p.signalCode !== null)
    return { code: p.exitCode, signal: p.signalCode, killed: false };
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) =>
    p.once('exit', (code, sig) => r([code, sig])),
  );
  p.kill(signal);
  let killed = false;
  const t = setTimeout(() => {
    killed = true;
    p.kill('SIGKILL');
  }, boundMs);
  const [code, sig] = await exited;
  clearTimeout(t);
  return { code, signal: sig, killed };
}

/** Pids of every Chroma server (isolated or not) running on this data folder. */
export function chromaServers(dataDir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(join(dataDir, 'chroma')))
        out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Kills every Chroma server left on the data folder (test cleanup). */
export function killChromaServers(dataDir: string): void {
  for (const pid of chromaServers(dataDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * Every file under `dir`. The sidecar may be running: a file (a lock, a temporary write) that goes between
 * the listing and its stat is not there to read, so it is skipped.
 */
export function* filesUnder(dir: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  for (const name of names) {
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) yield* filesUnder(p);
    else if (st.isFile()) yield p;
  }
}
