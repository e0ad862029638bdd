/**
 * The lexical index's search thread (worker_threads; lexical.ts `searchOnThread`): its own connection to
 * the index file, answering full-text queries, id lookups and scope listings one at a time, each under the
 * same lock file as every other statement on that file, and ranking full-text queries from postings kept
 * in memory while they match the file. Only reads run here; writes stay on the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LexicalIndex, type ThreadReply, type ThreadRequest } from './lexical';

const port = parentPort;
if (!port) throw new Error('lexicalWorker.ts runs as a worker thread of the sidecar.');
// This connection keeps the postings in memory (postingsMirror.ts): the searches here rank from them.
const opening = LexicalIndex.open((workerData as { file: string }).file, {
  postings: true,
  log: (line, level) => port.postMessage({ log: line, level } satisfies ThreadReply),
});
let queue = Promise.resolve();
port.on('message', (m: ThreadRequest) => {
  if (m.op === 'settled') {
    // waits beside the queue: searches go on (from the file) while the postings load
    void opening
      .then(async (ix) => {
        await ix.postings?.settled();
        return ix.postings?.ready ?? false;
      })
      .then(
        (settled) => port.postMessage({ id: m.id, settled } satisfies ThreadReply),
        (e: unknown) => port.postMessage({ id: m.id, error: String(e) } satisfies ThreadReply),
      );
    return;
  }
  queue = queue.then(async () => {
    let reply: ThreadReply;
    try {
      const ix = await opening;
      if (m.op === 'match') reply = { id: m.id, hits: await ix.match(m.query, m.limit) };
      else if (m.op === 'indexed') reply = { id: m.id, indexed: [...(await ix.lookup(m.ids, m.projects))] };
      else if (m.op === 'count') reply = { id: m.id, count: await ix.countHere(m.kind) };
      else {
        const members = await ix.listMembers(m.kind, m.projects, m.max);
        reply = { id: m.id, members: members ? [...members] : null };
      }
    } catch (e) {
      reply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply);
  });
});
