/**
 * The store's connection to Chroma: the client (over the embedded server's socket, or HTTP to a remote
 * one), checked before the first request and after a request could not reach the server; every operation
 * retried through a reconnect (the supervisor restarts a dead embedded server) and while a fresh
 * collection's index segment is not on disk yet; a full disk as a store outage. Collections are opened once.
 */
import { ChromaClient, type Collection } from 'chromadb';
import { StoreUnavailableError, errorMessage } from '../shared/errors';
import { isNoSpace, writeFailure } from '../util/append';
import type { ChromaEndpoint, ChromaSupervisor } from './chromaServer';
import { socketClient, type SocketClient } from './socketFetch';
import type { ActiveCollection } from './storeState';

/** Chroma's transient "Error creating hnsw segment reader: Nothing found on disk" on a fresh collection. */
function isSegmentNotReady(e: unknown): boolean {
  return /hnsw segment reader|Nothing found on disk/i.test(
    `${errorMessage(e)} ${errorMessage((e as { cause?: unknown })?.cause ?? '')}`,
  );
}

function isConnectionError(e: unknown): boolean {
  const name = (e as { name?: string })?.name ?? '';
  const msg = errorMessage(e);
  const cause = errorMessage((e as { cause?: unknown })?.cause ?? '');
  return (
    // Also a request to the socket of a server that is gone (socketFetch.ts; e.g. the process that
    // started it exited and stopped it): reconnecting adopts or starts a server.
    name === 'ChromaConnectionError' ||
    /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|other side closed|UND_ERR|Failed to connect/i.test(
      msg + ' ' + cause,
    )
  );
}

export class ChromaConnection {
  private client: ChromaClient | undefined;
  private clientKey = '';
  /** The client over an embedded server's socket (socketFetch.ts), when it has one: its connections. */
  private socket: SocketClient | undefined;
  /** Whether the next request checks the server first (after a request could not reach it). */
  private recheck = false;
  private readonly collections = new Map<string, Collection>();

  constructor(
    private readonly supervisor: ChromaSupervisor,
    private readonly log: (line: string) => void,
  ) {}

  /** Closes the idle connections to the server's socket (dispose; a later request opens new ones). */
  disconnect(): void {
    this.socket?.close();
    this.socket = undefined;
    this.client = undefined;
    this.clientKey = '';
    this.collections.clear();
  }

  /**
   * The client of a live server. The server is checked (its heartbeat, starting or adopting one as
   * needed) only before the first request and after a request could not reach it: a heartbeat before
   * every request put one more round trip on recall's path (two to four per recall), and a server that
   * died in between shows as a connection error, after which {@link run} checks it again.
   */
  private async connect(): Promise<ChromaClient> {
    if (this.client && !this.recheck) return this.client;
    let ep: ChromaEndpoint;
    try {
      ep = await this.supervisor.ensure();
      this.recheck = false;
    } catch (e) {
      throw new StoreUnavailableError(errorMessage(e), { cause: e });
    }
    const key = ep.socketPath
      ? `unix:${ep.socketPath}`
      : `${ep.ssl ? 'https' : 'http'}://${ep.host}:${ep.port}`;
    if (!this.client || key !== this.clientKey) {
      this.socket?.close();
      this.socket = ep.socketPath ? socketClient(ep.socketPath) : undefined;
      this.client =
        this.socket?.client ??
        new ChromaClient({ host: ep.host, port: ep.port, ssl: ep.ssl, headers: ep.headers });
      this.clientKey = key;
      this.collections.clear();
    }
    return this.client;
  }

  /** Runs a Chroma operation, reconnecting (and restarting the embedded server) on connection errors. */
  async run<T>(what: string, op: (client: ChromaClient) => Promise<T>): Promise<T> {
    let lastErr: unknown;
    for (let attempt = 0; attempt < 8; attempt++) {
      const client = await this.connect();
      try {
        return await op(client);
      } catch (e) {
        // A full disk is a store outage, not a bad capture: the queue keeps the capture until there is room.
        if (isNoSpace(e)) throw writeFailure('the memory store', e);
        if (isSegmentNotReady(e)) {
          // A collection just created (or written by another process) whose index segment Chroma has
          // not flushed yet: the same request succeeds a moment later (chroma-core/chroma#4212).
          lastErr = e;
          this.log(`Chroma's index for ${what} is not on disk yet (attempt ${attempt + 1}); retrying`);
          await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
          continue;
        }
        if (!isConnectionError(e)) throw e;
        this.recheck = true;
        lastErr = e;
        this.log(`Chroma connection lost during ${what} (attempt ${attempt + 1}); reconnecting`);
        this.collections.clear();
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
      }
    }
    throw new StoreUnavailableError(
      `Chroma did not answer while trying to ${what}: ${errorMessage(lastErr)}`,
      { cause: lastErr },
    );
  }

  async collection(client: ChromaClient, info: ActiveCollection): Promise<Collection> {
    const cached = this.collections.get(info.name);
    if (cached) return cached;
    const col = await client.getOrCreateCollection({
      name: info.name,
      embeddingFunction: null,
      configuration: { hnsw: { space: 'cosine' } },
      metadata: { embedding_model: info.model, embedding_dim: info.dim, created_by: 'mnemo' },
    });
    this.collections.set(info.name, col);
    return col;
  }

  /** Forgets an opened collection (it was dropped). */
  forget(name: string): void {
    this.collections.delete(name);
  }
}
