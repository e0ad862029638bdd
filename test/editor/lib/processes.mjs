// Child-process and polling helpers for run.mjs: bounded waits, process-group
// kills, free ports. No blind sleeps: every wait polls a condition with a deadline.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

/** Resolves `promise`, or rejects with `message` after `ms`. */
export function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} (timed out after ${Math.round(ms / 1000)}s)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Polls `check()` every `intervalMs` until it returns a truthy value or `timeoutMs` passes. */
export async function pollUntil(check, { timeoutMs, intervalMs = 200, what }) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(
    `timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${what}${lastError ? `: ${lastError.message}` : ''}`,
  );
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

const live = new Set();

/**
 * Spawns a child in its own process group (detached) so that stopping it also
 * stops what it started (code-server's extension host, pty host, watchers...).
 * stdout/stderr go to `logFile`.
 */
export function spawnGroup(cmd, args, { env, cwd, logFile, stdoutFile }) {
  const out = fs.openSync(logFile, 'a');
  // stdoutFile: stdout on its own (e.g. a CLI's --json output), stderr still to logFile.
  const stdout = stdoutFile ? fs.openSync(stdoutFile, 'w') : out;
  const child = spawn(cmd, args, { env, cwd, detached: true, stdio: ['ignore', stdout, out] });
  fs.closeSync(out);
  if (stdout !== out) fs.closeSync(stdout);
  const entry = { child, exited: false };
  entry.exit = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      entry.exited = true;
      live.delete(entry);
      resolve({ code, signal });
    });
    child.on('error', (err) => {
      entry.exited = true;
      live.delete(entry);
      resolve({ code: null, signal: null, error: err });
    });
  });
  live.add(entry);
  return entry;
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** SIGTERM the group, then SIGKILL it if still there after `graceMs`. */
export async function stopGroup(entry, graceMs = 5000) {
  if (!entry || !entry.child.pid) return;
  const pid = entry.child.pid;
  if (!entry.exited) {
    killGroup(pid, 'SIGTERM');
    await Promise.race([entry.exit, new Promise((r) => setTimeout(r, graceMs))]);
  }
  // The group leader may be gone while its children (extension host...) live on.
  killGroup(pid, 'SIGKILL');
  live.delete(entry);
}

/** Last resort from a process 'exit' handler: synchronous SIGKILL of every group still known. */
export function killAllSync() {
  for (const entry of live) {
    if (entry.child.pid) killGroup(entry.child.pid, 'SIGKILL');
  }
  live.clear();
}

/** Runs a command to completion with a timeout; resolves { code, signal }. */
export function runToCompletion(cmd, args, { env, cwd, timeoutMs, logFile, stdoutFile }) {
  const entry = spawnGroup(cmd, args, { env, cwd, logFile, stdoutFile });
  return withTimeout(entry.exit, timeoutMs, `${cmd} ${args.join(' ')}`)
    .catch(async (e) => {
      await stopGroup(entry, 1000);
      throw e;
    })
    .then(async (r) => {
      await stopGroup(entry, 0); // reap anything it left behind in its group
      return r;
    });
}
