/** Process entry of the sidecar (dist/sidecar.js): JSON-RPC on stdio. */
import { serveStdio } from './stdio';

serveStdio();
