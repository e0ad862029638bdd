/**
 * What a failed first-use download of the embedding model was: the mirror does not have the model (a 404)
 * or it could not be reached (the network, a stall, a refusal). Only the error's own words decide; a URL in
 * them is not read as a status (a mirror on port 40413 once read as "has no weights").
 */

/** The cause names a missing file (the hub's "Could not locate file", or a 404 status). */
const MISSING = /Could not locate file|status code 404\b|\b404 Not Found\b|\(404\)|\bHTTP 404\b/i;
/** The cause names an unreachable or silent host. */
const UNREACHABLE =
  /fetch failed|ENOTFOUND|ECONNREFUSED|ECONNRESET|EAI_AGAIN|ETIMEDOUT|no data from|Unauthorized|Forbidden|terminated|aborted/i;

export type DownloadFailure = 'missing' | 'unreachable' | 'other';

export function downloadFailure(cause: string): DownloadFailure {
  // Unreachable first: a stall or a refusal says so, whatever digits its URL holds.
  const words = cause.replace(/\bhttps?:\/\/\S+/g, '<url>');
  if (UNREACHABLE.test(words)) return 'unreachable';
  if (MISSING.test(words)) return 'missing';
  return 'other';
}
