/**
 * Erasure from Chroma's files (issue 16): a deleted memory's text, and the text an edit replaced, leave
 * `chroma.sqlite3` (its write-ahead log `embeddings_queue`, its free pages) once Chroma is stopped and
 * started again, or after `mnemo compact`; the lexical index loses a deleted text at once. Every file of
 * the data folder is scanned for the texts' bytes. And nothing else is lost: what remains is listed,
 * counted and recalled as before, also after Chroma was killed mid-way and replayed its log.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { pendingFile } from '../../sidecar/store/erasure';
import { cli, filesUnder } from '../reliability/support';
import { pidAlive } from '../../sidecar/util/process';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig, waitFor } from '../support/sidecarSession';

/** The files of the data folder holding `marker` (the model cache aside; a file gone meanwhile holds nothing). */
function filesWith(dataDir: string, marker: string): string[] {
  const holds = (f: string) => {
    try {
      return readFileSync(f).includes(marker);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
  };
  return [...filesUnder(dataDir)].filter((f) => !f.includes(join(dataDir, 'models'))).filter(holds);
}

const FILLERS = [
  'We decided that the red team owns the payments module.',
  'We decided that the green team owns the search indexer.',
  'We decided that the blue team owns the mobile release train.',
  'We decided that the nightly build runs at 02:00 UTC.',
  'We decided that feature flags live in the flags service.',
];

describe('erasure from Chroma and the index files', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(cleanupDataDir));

  test('a deleted and an edited text are gone from every file once the sidecar stops; the rest recalls as before', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const deleted = 'zqvdeletedkappa4711';
    const replaced = 'zqvreplacedsigma0815';
    let s = await SidecarSession.start(testConfig(dataDir));
    let keptId: string;
    let editedId: string;
    let deletedId: string;
    try {
      const d = await s.request(P.RememberRequest, {
        text: `We deploy the billing service with the ${deleted} flag on Fridays.`,
        project_id: 'erase',
      });
      const e = await s.request(P.RememberRequest, {
        text: `The staging database listens on port 6432 behind ${replaced}.`,
        project_id: 'erase',
      });
      deletedId = d.id!;
      editedId = e.id!;
      await s.request(P.UpdateRequest, {
        id: editedId,
        patch: { text: 'The staging database listens on port 7777 behind the new proxy.' },
      });
      await s.request(P.DeleteRequest, { ids: [deletedId] });
      for (const text of FILLERS) await s.request(P.RememberRequest, { text, project_id: 'erase' });
      keptId = (await s.request(P.ListRequest, { project_id: 'erase', limit: 100 })).items.find(
        (m) => m.text === FILLERS[0],
      )!.id;
      // The lexical index drops a deleted text at once, while everything runs.
      assert.deepEqual(filesWith(join(dataDir, 'index'), deleted), []);
    } finally {
      await s.stop();
    }
    // The sidecar stopped its Chroma and then purged what was erased meanwhile.
    assert.deepEqual(filesWith(dataDir, deleted), []);
    assert.deepEqual(filesWith(dataDir, replaced), []);
    assert.ok(!existsSync(pendingFile(dataDir)), 'nothing left pending');

    s = await SidecarSession.start(testConfig(dataDir));
    try {
      const list = await s.request(P.ListRequest, { project_id: 'erase', limit: 100 });
      assert.equal(list.total, 6, 'the five fillers and the edited memory');
      assert.ok(!list.items.some((m) => m.id === deletedId), 'the deleted memory was not resurrected');
      const edited = list.items.find((m) => m.id === editedId)!;
      assert.equal(edited.text, 'The staging database listens on port 7777 behind the new proxy.');
      const stats = await s.request(P.StatsRequest, {});
      assert.equal(stats.total, 6);
      // By meaning: the vector index came back with the same memories (a replay resurrecting the deleted
      // one would rank it first for its own words).
      const byMeaning = await s.request(P.SearchRequest, {
        query: 'How do we deploy the billing service on Fridays?',
        mode: 'semantic',
        project_id: 'erase',
        limit: 10,
      });
      assert.ok(!byMeaning.items.some((h) => h.memory.id === deletedId));
      const recall = await s.request(P.RecallRequest, {
        query: 'Which team owns the payments module?',
        project_ids: ['erase'],
      });
      assert.equal(recall.items[0]?.memory.id, keptId);
      const port = await s.request(P.RecallRequest, {
        query: 'Which port does the staging database listen on?',
        project_ids: ['erase'],
      });
      assert.equal(port.items[0]?.memory.id, editedId);
      await assert.rejects(s.request(P.GetRequest, { id: deletedId }));
    } finally {
      await s.stop();
    }
    assert.deepEqual(filesWith(dataDir, deleted), []);
    assert.deepEqual(filesWith(dataDir, replaced), []);
    assert.ok(!existsSync(pendingFile(dataDir)), 'nothing left pending');
  });

  test('Chroma killed before it flushed: the purge at the next start keeps what the log replay needs', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const deleted = 'zqvkilleddelta2718';
    let s = await SidecarSession.start(testConfig(dataDir));
    let deletedId: string;
    const keep: string[] = [];
    try {
      for (const text of FILLERS.slice(0, 3))
        keep.push((await s.request(P.RememberRequest, { text, project_id: 'kill' })).id!);
      deletedId = (
        await s.request(P.RememberRequest, {
          text: `The release key rotates with ${deleted} every quarter.`,
          project_id: 'kill',
        })
      ).id!;
      await s.request(P.UpdateRequest, {
        id: keep[0]!,
        patch: { text: 'We decided that the red team owns the payments and invoicing modules.' },
      });
      await s.request(P.DeleteRequest, { ids: [deletedId] });
      // No clean shutdown: the sidecar and then its Chroma die, as in a power cut (in this order, so no
      // supervisor restarts Chroma meanwhile).
      const chroma = s.chromaPid();
      await s.kill9();
      process.kill(chroma, 'SIGKILL');
      await waitFor('Chroma to exit', () => !pidAlive(chroma));
    } finally {
      await s.stop();
    }
    // Nobody stopped Chroma cleanly, so nothing was purged yet: Chroma 1.0.5 keeps the deleted text in
    // its log (under 1000 writes nothing of it is purged), which the scan finds.
    assert.deepEqual(filesWith(dataDir, deleted), [join(dataDir, 'chroma', 'chroma.sqlite3')]);
    // The pending file holds the two ids and never a text.
    const pending = readFileSync(pendingFile(dataDir), 'utf8').trim().split('\n').sort();
    assert.deepEqual(pending, [deletedId, keep[0]!].sort());
    assert.ok(!readFileSync(pendingFile(dataDir), 'utf8').includes(deleted));
    s = await SidecarSession.start(testConfig(dataDir));
    try {
      const list = await s.request(P.ListRequest, { project_id: 'kill', limit: 100 });
      assert.deepEqual(list.items.map((m) => m.id).sort(), [...keep].sort());
      assert.equal(
        list.items.find((m) => m.id === keep[0])!.text,
        'We decided that the red team owns the payments and invoicing modules.',
      );
      const byMeaning = await s.request(P.SearchRequest, {
        query: 'How often does the release key rotate?',
        mode: 'semantic',
        project_id: 'kill',
        limit: 10,
      });
      assert.ok(!byMeaning.items.some((h) => h.memory.id === deletedId));
      assert.equal(byMeaning.items.length, 3);
      // A new write after the purge lands next to the old ones.
      await s.request(P.RememberRequest, { text: FILLERS[3]!, project_id: 'kill' });
      assert.equal((await s.request(P.StatsRequest, {})).total, 4);
    } finally {
      await s.stop();
    }
    assert.deepEqual(filesWith(dataDir, deleted), []);
  });

  test('wiping a project leaves none of its captured text in the capture queue file (issue 39)', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const marker = 'zqvqueuedcapturesigma93';
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      await s.request(P.CaptureSessionRequest, {
        project_id: 'queued',
        source_type: 'chat',
        messages: [
          { role: 'user', content: `We decided that the queued project deploys with ${marker}.` },
          { role: 'user', content: 'Noted, thanks.' },
        ],
      });
      assert.equal((await s.request(P.FlushQueueRequest, { timeout_ms: 120_000 })).remaining, 0);
      const queue = join(dataDir, 'queue');
      assert.ok(
        filesWith(dataDir, marker).some((f) => f.startsWith(queue)),
        'processed, the capture is still in the queue file',
      );
      await s.request(P.WipeProjectRequest, { project_id: 'queued' });
      assert.deepEqual(
        filesWith(dataDir, marker).filter((f) => f.startsWith(queue)),
        [],
        'the wipe rewrote the queue file',
      );
    } finally {
      await s.stop();
    }
  });

  test('mnemo compact: refused while a server runs, then erases a wiped project and older deletes', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const memoryMarker = 'zqvwipedmemoryomega42';
    const turnMarker = 'zqvwipedturnlambda77';
    let s = await SidecarSession.start(testConfig(dataDir));
    try {
      await s.request(P.RememberRequest, { text: FILLERS[4]!, project_id: 'stays' });
      await s.request(P.RememberRequest, {
        text: `We decided that the wiped project signs builds with ${memoryMarker}.`,
        project_id: 'wiped',
      });
      await s.request(P.IngestRequest, {
        project_id: 'wiped',
        source_type: 'chat',
        messages: [{ id: 't1', role: 'user', content: `The old runner was called ${turnMarker} back then.` }],
      });
      const wiped = await s.request(P.WipeProjectRequest, { project_id: 'wiped' });
      assert.equal(wiped.memories, 1);
      assert.ok(wiped.episodes >= 1);
      const busy = await cli(dataDir, ['compact']);
      assert.equal(busy.code, 1, busy.stdout + busy.stderr);
      assert.match(busy.stdout, /not compacted: a Chroma server \(pid \d+\) of another Mnemo process/);
      // Killed, so that its stop purges nothing.
      const chroma = s.chromaPid();
      await s.kill9();
      process.kill(chroma, 'SIGKILL');
      await waitFor('Chroma to exit', () => !pidAlive(chroma));
    } finally {
      await s.stop();
    }
    assert.ok(filesWith(dataDir, memoryMarker).length > 0, 'the wiped memory is still in Chroma');
    assert.ok(filesWith(dataDir, turnMarker).length > 0, 'the wiped turn is still in Chroma');
    // As if these deletes were made before Mnemo kept the pending file: compact finds them in the log.
    rmSync(pendingFile(dataDir), { force: true });
    const r = await cli(dataDir, ['compact']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Erasure: removed [1-9]\d* old rows? of \d+ erased ids? from Chroma's log/);
    assert.match(r.stdout, /Compacted the lexical index/);
    assert.deepEqual(
      filesWith(dataDir, memoryMarker),
      [],
      'nowhere: Chroma, the index, the audit log, the queue',
    );
    assert.deepEqual(filesWith(dataDir, turnMarker), []);
    s = await SidecarSession.start(testConfig(dataDir));
    try {
      const stays = await s.request(P.ListRequest, { project_id: 'stays', limit: 10 });
      assert.deepEqual(
        stays.items.map((m) => m.text),
        [FILLERS[4]],
      );
      assert.equal((await s.request(P.ListRequest, { project_id: 'wiped', limit: 10 })).total, 0);
      const recall = await s.request(P.RecallRequest, {
        query: 'Where do feature flags live?',
        project_ids: ['stays'],
      });
      assert.equal(recall.items[0]?.memory.text, FILLERS[4]);
    } finally {
      await s.stop();
    }
  });
});
