/**
 * Worker thread of Import Chat (`chatImport.ts`; bundled as `dist/chatImportWorker.js`): decodes and parses
 * one chat export off the extension host's main thread, then posts its sessions one message each, so that
 * the main thread never spends longer than one session's deserialization at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ChatParseError, parseChatJson } from './chatExport';
import type { FromChatWorker } from './chatImport';

const post = (msg: FromChatWorker): void => parentPort!.postMessage(msg);
const { bytes } = workerData as { bytes: Uint8Array };

let doc: unknown;
try {
  doc = JSON.parse(new TextDecoder('utf-8').decode(bytes));
} catch (err) {
  post({ type: 'error', kind: 'json', message: err instanceof Error ? err.message : String(err) });
  doc = undefined;
}
if (doc !== undefined) {
  try {
    const sessions = parseChatJson(doc);
    post({
      type: 'head',
      sessions: sessions.length,
      messages: sessions.reduce((n, s) => n + s.messages.length, 0),
    });
    for (const session of sessions) post({ type: 'session', session });
    post({ type: 'end' });
  } catch (err) {
    if (err instanceof ChatParseError) post({ type: 'error', kind: 'shape', message: err.message });
    else post({ type: 'error', kind: 'internal', message: err instanceof Error ? err.message : String(err) });
  }
}
