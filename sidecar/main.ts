/** Process entry of the sidecar (dist/sidecar.js): JSON-RPC on stdio. */
import { serveStdio } from './stdio';
import { lowerPriority } from './util/process';

/**
 * The editor's sidecar runs a little below normal priority, and so do Chroma and the embedding worker it
 * starts (the worker lowers itself further, to 10). While it learns from an import, its rules and Chroma's
 * writes held both cores, and the extension host, at normal priority, waited up to 91 ms for one; at nice
 * 5 the longest wait was 54 ms and the event-loop lag max 62–65 ms against 72–160 ms, with as many
 * sessions learned. On an idle machine nice changes nothing: recall p95 was the same within the noise
 * (docs/benchmarks.md, "The sidecar below normal priority").
 */
const SIDECAR_NICENESS = 5;

lowerPriority(SIDECAR_NICENESS);
serveStdio();
