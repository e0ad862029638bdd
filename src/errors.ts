/**
 * Turns whatever a command caught into one sentence a person understands. The sidecar answers with
 * JSON-RPC errors whose codes are in protocol.ts `ErrorCodes`; its messages are already one sentence,
 * so we prefer them and fall back to a sentence per code.
 */
import { ErrorCodes } from '../sidecar/protocol';

/** Thrown by the context when a command needs the sidecar and it is not running. */
export class SidecarDownError extends Error {
  override name = 'SidecarDownError';
  constructor(reason: string) {
    super(
      `Mnemo's memory service is not running (${reason}). Run "Mnemo: Restart Sidecar" or see "Mnemo: Show Output".`,
    );
  }
}

/** An error a command raises on purpose; its message is shown as is. */
export class UserError extends Error {
  override name = 'UserError';
}

const BY_CODE: Record<number, string> = {
  [ErrorCodes.InvalidInput]: 'Mnemo rejected the input as invalid.',
  [ErrorCodes.NotFound]: 'That memory no longer exists; the views have been refreshed.',
  [ErrorCodes.StoreUnavailable]:
    'Mnemo cannot reach ChromaDB; check that it is running and that "mnemo.chroma.url" and the Chroma token are right.',
  [ErrorCodes.EmbeddingUnavailable]:
    'The embedding model is not available; check "mnemo.embedding.*" (or set "mnemo.embedding.modelPath" for offline use). Keyword search still works.',
  [ErrorCodes.DimensionMismatch]:
    'The embedding model changed and its vectors do not fit the existing store; switch "mnemo.embedding.model" back or re-embed.',
  [ErrorCodes.LlmUnavailable]:
    'The language model is not available; check "mnemo.llm.*" and the API key ("Mnemo: Set LLM API Key").',
  [ErrorCodes.Cancelled]: 'The operation was cancelled; nothing was changed.',
  [ErrorCodes.Internal]: 'Mnemo hit an internal error; details are in "Mnemo: Show Output".',
};

/** JSON-RPC code of an error (ResponseError from vscode-jsonrpc or a plain object), if any. */
export function errorCode(err: unknown): number | undefined {
  if (err && typeof err === 'object' && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

function isOneSentence(message: string): boolean {
  return message.length > 0 && message.length <= 300 && !message.includes('\n') && !/^\s*at\s/.test(message);
}

/** One short sentence for the user. */
export function describeError(err: unknown): string {
  if (err instanceof SidecarDownError || err instanceof UserError) return err.message;
  const code = errorCode(err);
  const message =
    err instanceof Error
      ? err.message
      : typeof err === 'string'
        ? err
        : err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string'
          ? (err as { message: string }).message
          : '';
  if (code !== undefined && code in BY_CODE) {
    // The sidecar's own sentence is more specific, except for internal errors, which may leak details.
    if (code !== ErrorCodes.Internal && isOneSentence(message)) return message;
    return BY_CODE[code];
  }
  if (
    /Client is not running|Connection is closed|connection got disposed|Pending response rejected/i.test(
      message,
    )
  ) {
    return new SidecarDownError('the connection closed').message;
  }
  if (isOneSentence(message)) return message.endsWith('.') ? message : `${message}.`;
  return BY_CODE[ErrorCodes.Internal];
}

/** Stack (or string form) for the log. */
export function errorDetail(err: unknown): string {
  if (err instanceof Error) {
    const data = (err as { data?: unknown }).data;
    return `${err.stack ?? err.message}${data !== undefined ? `\ndata: ${JSON.stringify(data)}` : ''}`;
  }
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}

/** Codes of failures a person causes or expects (bad input, a memory gone, cancelled, a store or model away). */
const EXPECTED_CODES: readonly number[] = [
  ErrorCodes.InvalidInput,
  ErrorCodes.NotFound,
  ErrorCodes.Cancelled,
  ErrorCodes.StoreUnavailable,
  ErrorCodes.EmbeddingUnavailable,
  ErrorCodes.LlmUnavailable,
];

/** An expected failure: said in one sentence at warn level, never with a stack trace. */
export function isExpected(err: unknown): boolean {
  if (err instanceof UserError || err instanceof SidecarDownError) return true;
  const code = errorCode(err);
  return code !== undefined && EXPECTED_CODES.includes(code);
}

/** Logs a failure: an expected one as one sentence (warn), anything else with its stack (error). */
export function logFailure(
  log: { warn(message: string): void; error(message: string): void },
  where: string,
  err: unknown,
): void {
  if (isExpected(err)) log.warn(`${where}: ${describeError(err)}`);
  else log.error(`${where} failed: ${errorDetail(err)}`);
}
