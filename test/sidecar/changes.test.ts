/**
 * A memory this sidecar writes is announced once (`mnemo/memories/changed`), not a second time when the
 * audit tail reads its own entry back: that second refresh came a moment after the first and rebuilt the
 * Memories tree under a memory just revealed and selected (Search → Enter), dropping the selection (seen in
 * the editor suite on VS Code 1.99.3). Changes by another process on the data folder are still announced.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as P from '../../sidecar/protocol';
import { SidecarSession, cleanupDataDir, tempDataDir, testConfig, waitFor } from '../support/sidecarSession';

const dataDir = tempDataDir('mnemo-changes-');
after(() => cleanupDataDir(dataDir));

test(
  'a write of this sidecar is announced once; a write of another process on the folder is announced',
  { timeout: 180_000 },
  async () => {
    const s = await SidecarSession.start(testConfig(dataDir));
    try {
      const mine = await s.request(P.RememberRequest, {
        text: 'We decided that the nightly build publishes to the staging bucket.',
        project_id: 'changes',
      });
      // The tail reads the audit log 250 ms after it changes; wait well past that.
      await new Promise((r) => setTimeout(r, 2_000));
      const announcing = (id: string) => s.changes.filter((c) => c.ids?.includes(id)).length;
      assert.equal(announcing(mine.id!), 1, `announced ${announcing(mine.id!)} times`);

      // Another process (a second sidecar on the same folder) writes: this one announces it.
      const other = await SidecarSession.start(testConfig(dataDir));
      let theirs: string | undefined;
      try {
        theirs = (
          await other.request(P.RememberRequest, {
            text: 'We decided that release tags are signed with the team key.',
            project_id: 'changes',
          })
        ).id;
      } finally {
        await other.stop();
      }
      await waitFor('the other process’s write to be announced here', () => announcing(theirs!) > 0, 30_000);
    } finally {
      await s.stop();
    }
  },
);
