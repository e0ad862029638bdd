/**
 * `mnemo mcp [--http]`: runs Mnemo's MCP server on the same core and data folder as the extension's
 * sidecar. The service adopts the running Chroma server or starts one (sidecar/store/chromaServer.ts);
 * it keeps no capture queue of its own (remember writes directly, ids are content hashes), so any number
 * of MCP servers and sidecars can run at once without losing or doubling a memory.
 * stdout carries only MCP messages: logs go to `<data dir>/logs/mcp.log` and, with MNEMO_DEBUG, stderr.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { resolveConfig, type SidecarConfigInput } from '../config';
import { createEmbeddingProvider } from '../embed';
import { errorMessage, InvalidInputError } from '../shared/errors';
import { MnemoService } from '../service';
import { ensureToken, installPort, replaceToken, serveHttp, tokenFile } from './http';
import { createMcpServer } from './server';
import { FrameGuard, MAX_FRAME_BYTES, refusedFrame } from './stdioFrames';

export interface RunMcpOptions {
  http?: boolean;
  port?: number;
  project?: string;
}

/** Nothing but MCP may reach stdout: console output of libraries goes to stderr. */
function keepStdoutForProtocol(): void {
  const toErr = (...a: unknown[]) =>
    process.stderr.write(a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ') + '\n');
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
}

export async function runMcp(cfgInput: SidecarConfigInput, opts: RunMcpOptions): Promise<void> {
  if (!opts.http) keepStdoutForProtocol();
  const config = resolveConfig(cfgInput);
  mkdirSync(join(config.dataDir, 'logs'), { recursive: true });
  const logFile = join(config.dataDir, 'logs', 'mcp.log');
  const log = (line: string) => {
    const stamped = `${new Date().toISOString()} [mcp ${process.pid}] ${line}`;
    try {
      appendFileSync(logFile, stamped + '\n');
    } catch {
      // logging never takes the server down
    }
    if (process.env.MNEMO_DEBUG) process.stderr.write(stamped + '\n');
  };
  const embedder = createEmbeddingProvider({
    ...config.embedding,
    cacheDir: join(config.dataDir, 'models'),
    onProgress: (p) => log(p.message),
    log,
  });
  const svc = new MnemoService({ config, embedder, backgroundQueue: false, events: { log } });
  await svc.start();
  log(`Mnemo MCP server (pid ${process.pid}) on ${opts.http ? 'HTTP' : 'stdio'}, data in ${config.dataDir}`);

  let closing = false;
  const stops: (() => Promise<void>)[] = [];
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    log(`Stopping (${why}).`);
    for (const s of stops) await s().catch(() => undefined);
    await svc.dispose().catch((e: unknown) => log(`Dispose failed: ${errorMessage(e)}`));
    process.exit(0);
  };
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, () => void shutdown(sig));

  if (opts.http) {
    const token = ensureToken(config.dataDir);
    let h: Awaited<ReturnType<typeof serveHttp>>;
    try {
      h = await serveHttp({
        port: opts.port ?? installPort(config.dataDir),
        token,
        log,
        newServer: () => createMcpServer(svc, { project: opts.project, log }),
      });
    } catch (e) {
      // Nothing of this server may stay behind: its Chroma (started by the service) stops with it.
      await svc.dispose().catch(() => undefined);
      if ((e as { takenByOtherUser?: boolean }).takenByOtherUser) {
        replaceToken(config.dataDir);
        throw new InvalidInputError(
          `${errorMessage(e).replace(/\.$/, '')}. Clients configured for that port may have sent it your bearer token, so the token was replaced (${tokenFile(config.dataDir)}).`,
        );
      }
      throw e;
    }
    stops.push(() => h.close());
    process.stderr.write(
      `Mnemo MCP server on ${h.url} (streamable HTTP, 127.0.0.1 only).\n` +
        `Clients must send the header "Authorization: Bearer <token>"; the token is in ${tokenFile(config.dataDir)} (mode 0600):\n` +
        `  curl -H "Authorization: Bearer $(cat ${tokenFile(config.dataDir)})" ...\n`,
    );
    return new Promise<void>(() => undefined);
  }
  const mcp = createMcpServer(svc, { project: opts.project, log });
  // Whole lines only, each of at most MAX_FRAME_BYTES: an oversized one is answered with an error, not the end.
  const frames = process.stdin.pipe(
    new FrameGuard((id, bytes) => {
      log(`Refused a message of ${bytes} bytes on stdio (over ${MAX_FRAME_BYTES}).`);
      process.stdout.write(refusedFrame(id, bytes));
    }),
  );
  const transport = new StdioServerTransport(frames);
  transport.onclose = () => void shutdown('stdin closed');
  process.stdin.once('end', () => void shutdown('stdin ended'));
  await mcp.connect(transport);
  return new Promise<void>(() => undefined);
}
