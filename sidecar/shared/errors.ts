/**
 * The small family of typed errors the sidecar raises. Each carries a JSON-RPC code (protocol.ts
 * ErrorCodes) and a message that is one sentence a person understands.
 */
import { ErrorCodes } from '../protocol';

export class MnemoError extends Error {
  override name = 'MnemoError';
  readonly code: number = ErrorCodes.Internal;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The base of a typed error: a {@link MnemoError} with its JSON-RPC code and its name (spelled out: class
 * names do not survive the minified build).
 */
export function typedError(name: string, code: number) {
  return class extends MnemoError {
    override name = name;
    override readonly code = code;
  };
}

export class InvalidInputError extends typedError('InvalidInputError', ErrorCodes.InvalidInput) {}

export class NotFoundError extends typedError('NotFoundError', ErrorCodes.NotFound) {}

export class StoreUnavailableError extends typedError('StoreUnavailableError', ErrorCodes.StoreUnavailable) {}

export class DimensionMismatchError extends typedError(
  'DimensionMismatchError',
  ErrorCodes.DimensionMismatch,
) {
  constructor(
    readonly expected: number,
    readonly actual: number,
    collection: string,
  ) {
    super(
      `Refused to write a ${actual}-dimensional vector into collection "${collection}", which holds ${expected}-dimensional vectors; re-embed or switch back to the original model.`,
    );
  }
}

/**
 * The embedding model is unavailable or failed (the base of the embedding family; providers throw its
 * subclass EmbeddingUnavailableError, sidecar/embed/types.ts). A capture that meets one stays queued.
 */
export class EmbeddingError extends typedError('EmbeddingError', ErrorCodes.EmbeddingUnavailable) {}

export class CancelledError extends typedError('CancelledError', ErrorCodes.Cancelled) {
  constructor(message = 'The operation was cancelled; nothing was changed.') {
    super(message);
  }
}

/** Throws CancelledError when the token was cancelled. */
export function checkCancelled(token?: { isCancellationRequested: boolean }): void {
  if (token?.isCancellationRequested) throw new CancelledError();
}

/** Message of any thrown value, without stack. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Why a backup could not be read or imported (sidecar/backup); the server may pass it as the error's `data`. */
export type BackupFailure =
  | 'not-found'
  | 'not-a-backup'
  | 'truncated'
  | 'wrong-password'
  | 'tampered'
  | 'unsupported-version'
  | 'invalid-record'
  | 'conflict'
  | 'rolled-back'
  /** Beyond a size limit (file, entries, inflated size, line, records): refused before it is read. */
  | 'too-large'
  /** Overwriting stored memories, or writing into global or another project, without the user's consent. */
  | 'needs-consent';

/** A backup file that cannot be read, verified or imported; the message is one sentence and nothing was changed. */
export class BackupError extends MnemoError {
  override name = 'BackupError';
  override readonly code: number;
  constructor(
    readonly reason: BackupFailure,
    message: string,
    /** `code` defaults to InvalidInput; a rolled-back import keeps the code of the failure that stopped it. */
    options?: { cause?: unknown; code?: number },
  ) {
    super(message, options);
    this.code = options?.code ?? ErrorCodes.InvalidInput;
  }
}
