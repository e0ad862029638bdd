/**
 * The line framing of `mnemo mcp` on stdio, in front of the SDK's transport: every message is one line,
 * and a line longer than {@link MAX_FRAME_BYTES} is refused on its own — skipped as it streams in (never
 * held whole), answered with a JSON-RPC error for its id when the id is near its start — while the server
 * goes on with the next line. The SDK's transport closed on an 11 MB line (its buffer limit) and took the
 * server down with it.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** The largest message read on stdio: the same bound as a request body over HTTP (http.ts). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** How much of a refused line is looked at for its id. */
const ID_WINDOW = 4096;

/** The JSON-RPC id of a message, from the start of its text (undefined when not found there). */
export function idNearStart(head: string): string | number | undefined {
  const m = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(head.slice(0, ID_WINDOW));
  if (!m) return undefined;
  return m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : Number(m[1]);
}

/** The error answer to a refused message (`id` null when it could not be read). */
export function refusedFrame(id: string | number | undefined, bytes: number, max = MAX_FRAME_BYTES): string {
  return (
    JSON.stringify({
      jsonrpc: '2.0',
      id: id ?? null,
      error: {
        code: -32600,
        message: `The message is larger than ${Math.round(max / 1024 / 1024)} MiB (${Math.round(bytes / 1024 / 1024)} MiB so far) and was refused; send less at once.`,
      },
    }) + '\n'
  );
}

/**
 * Passes whole lines of at most `max` bytes through; a longer line is dropped as it arrives and `refuse`
 * is called once for it with its id (when near its start) and the bytes seen.
 */
export class FrameGuard extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while the rest of an oversized line is skipped. */
  private skipping = false;
  private skipped = 0;
  private head = '';

  constructor(
    private readonly refuse: (id: string | number | undefined, bytes: number) => void,
    private readonly max = MAX_FRAME_BYTES,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl === -1 ? chunk.length : nl + 1;
      const piece = chunk.subarray(from, end);
      if (this.skipping) this.skipped += piece.length;
      else if (this.pendingBytes + piece.length > this.max + 1) this.startSkipping(piece);
      else {
        this.pending.push(piece);
        this.pendingBytes += piece.length;
      }
      if (nl !== -1) this.endLine();
      from = end;
    }
    done();
  }

  private startSkipping(piece: Buffer): void {
    this.head = Buffer.concat([...this.pending, piece.subarray(0, ID_WINDOW)]).toString('utf8', 0, ID_WINDOW);
    this.skipped = this.pendingBytes + piece.length;
    this.pending = [];
    this.pendingBytes = 0;
    this.skipping = true;
  }

  private endLine(): void {
    if (this.skipping) {
      this.refuse(idNearStart(this.head), this.skipped);
      this.skipping = false;
      this.head = '';
      return;
    }
    this.push(Buffer.concat(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }

  override _flush(done: TransformCallback): void {
    if (this.skipping) this.refuse(idNearStart(this.head), this.skipped);
    else if (this.pendingBytes) this.push(Buffer.concat(this.pending));
    done();
  }
}
