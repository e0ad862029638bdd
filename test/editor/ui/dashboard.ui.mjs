// UI: "Mnemo: Open Dashboard" renders the per-project counts, counted as the
// status bar counts (issue 38 item 8): memories in use, wrong and archived
// ones as a figure apart, other projects marked "not in this workspace", and
// no bar that would filter the tree to nothing. A project of its own (not a
// workspace folder, so no other test changes it) is seeded with known
// memories, one of them marked wrong; the webview's numbers and histogram must
// match them. The webview lives two iframes deep (VS Code's webview host, then
// the content).
import { pollUntil } from '../lib/processes.mjs';
import { waitSidecarRunning } from './support/mnemo.mjs';

const PROJECT = 'ui-dashboard-fixture';

export const seed = [
  {
    project: PROJECT,
    sourceType: 'chat',
    messages: [
      {
        role: 'user',
        content: 'We decided to pin the ingest worker pool at 8 threads for PLC-3000 imports.',
      },
      { role: 'user', content: 'I prefer squash merges for feature branches.' },
      { role: 'user', content: 'Remember this: the staging database runs Postgres 15 on port 5433.' },
      { role: 'user', content: 'Always run npm run lint before pushing to the release branch.' },
      { role: 'user', content: 'We decided to upload the ingest worker builds over FTP to the lab server.' },
    ],
    wrong: ['over FTP'],
  },
];

const IN_USE = ['active', 'pending', 'confirmed'];

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the dashboard must show for a project, computed from the memories themselves. */
function expectedCounts(memories, now = Date.now()) {
  const hist = new Array(10).fill(0);
  for (const m of memories) hist[Math.min(9, Math.floor(m.confidence_score * 10))]++;
  return {
    memories: memories.length,
    'new in 7 days': memories.filter((m) => Date.parse(m.created_at) >= now - 7 * DAY_MS).length,
    actionable: memories.filter((m) => m.is_actionable).length,
    pending: memories.filter((m) => m.status === 'pending').length,
    hist,
  };
}

/**
 * The dashboard's content frame: VS Code's webview iframe (laid over the editor, outside
 * .part.editor; class "webview ready" once loaded), then the content's #active-frame.
 */
function dashboardFrame(page) {
  return page
    .frameLocator('iframe.webview.ready[title="Mnemo Dashboard"], iframe.webview.ready')
    .first()
    .frameLocator('iframe#active-frame');
}

export const tests = [
  {
    name: 'Open Dashboard renders the right counts per project',
    async run(ctx) {
      const { page, wb, seed: s, screenshot, log } = ctx;
      const all = s.memories.filter((m) => m.project_id === PROJECT);
      const mine = all.filter((m) => IN_USE.includes(m.status));
      const retired = all.filter((m) => m.status === 'wrong' || m.status === 'archived').length;
      if (retired !== 1)
        throw new Error(`the seed of ${PROJECT} should hold one wrong memory, holds ${retired}`);
      const want = expectedCounts(mine);
      log(`expected for ${PROJECT}: ${JSON.stringify(want)}`);
      // The seed must exercise every number, or the test proves little.
      if (
        !(want.memories >= 3 && want.pending >= 1 && want.actionable >= 1 && want.actionable < want.memories)
      ) {
        throw new Error(`the seed of ${PROJECT} no longer gives distinct counts: ${JSON.stringify(want)}`);
      }
      await waitSidecarRunning(page);
      await wb.runCommand('Mnemo: Open Dashboard');
      await page
        .locator('.part.editor .tab', { hasText: 'Mnemo Dashboard' })
        .first()
        .waitFor({ state: 'visible', timeout: 20_000 });

      const frame = dashboardFrame(page);
      // Not a folder of this window: listed after the workspace's projects, and says so.
      const section = frame.locator(`section[aria-label="${PROJECT} (not in this workspace)"]`);
      await section.waitFor({ state: 'visible', timeout: 30_000 });
      const read = async () =>
        Object.fromEntries(
          await section
            .locator('.numbers button.num')
            .evaluateAll((els) =>
              els.map((e) => [
                e.querySelector('span')?.textContent?.trim(),
                Number(e.querySelector('b')?.textContent),
              ]),
            ),
        );
      // The panel re-renders when memories change (other tests may be capturing): poll for a match.
      let shown = {};
      await pollUntil(
        async () => {
          shown = await read();
          return ['memories', 'new in 7 days', 'actionable', 'pending'].every((k) => shown[k] === want[k]);
        },
        { timeoutMs: 15_000, what: `the dashboard numbers of ${PROJECT}` },
      ).catch((e) => {
        throw new Error(`${e.message}: shown ${JSON.stringify(shown)}, expected ${JSON.stringify(want)}`);
      });
      const bars = await section.locator('.hist .bar').evaluateAll((els) =>
        els.map((e) => ({
          count: Number(/^(\d+) with confidence/.exec(e.getAttribute('title') ?? '')?.[1] ?? NaN),
          button: e.tagName === 'BUTTON',
        })),
      );
      const counts = bars.map((b) => b.count);
      if (JSON.stringify(counts) !== JSON.stringify(want.hist)) {
        throw new Error(
          `confidence histogram shows ${JSON.stringify(counts)}, expected ${JSON.stringify(want.hist)} (the wrong memory is not counted)`,
        );
      }
      // Only a bar with memories is a button (one that filters the tree to nothing would mislead).
      const misleading = bars.filter((b) => b.button !== b.count > 0);
      if (misleading.length)
        throw new Error(`bars that are buttons without memories or the reverse: ${JSON.stringify(bars)}`);
      const apart = (
        (await section
          .locator('.retired')
          .textContent()
          .catch(() => '')) ?? ''
      ).trim();
      if (apart !== `${retired} wrong or archived`)
        throw new Error(
          `the wrong memory should be a figure apart ("${retired} wrong or archived"), shown "${apart}"`,
        );

      // The workspace folder's project is listed too, first, with at least its seeded memories.
      // (Known when another module seeded the workspace project; with --grep dashboard it may not be.)
      const wsProject = s.workspaceProject;
      if (wsProject) {
        const wsSeeded = s.memories.filter((m) => m.project_id === wsProject).length;
        const ws = frame.locator('section', { has: frame.locator(`.pid:text-is("${wsProject}")`) });
        await ws.waitFor({ state: 'visible', timeout: 10_000 });
        const wsTotal = Number(await ws.locator('button.num[data-metric="total"] b').textContent());
        if (!(wsTotal >= wsSeeded))
          throw new Error(`workspace project ${wsProject} shows ${wsTotal} memories, seeded ${wsSeeded}`);
        const firstPid = (await frame.locator('section .pid').first().textContent())?.trim();
        if (firstPid !== wsProject)
          throw new Error(`first project is ${firstPid}, expected the workspace's ${wsProject}`);
      }

      // Header: the workspace's number (the status bar's), the other projects apart, and the model.
      const meta = (await frame.locator('p.meta').textContent()) ?? '';
      const inUse = s.memories.filter((m) => IN_USE.includes(m.status));
      const here = inUse.filter((m) => m.project_id === wsProject || m.project_id === 'global').length;
      const total = Number(/^(\d+) memor(?:y|ies) in this workspace/.exec(meta)?.[1]);
      const elsewhere = Number(/(\d+) in other projects/.exec(meta)?.[1]);
      if (!(total >= here) || !(elsewhere >= inUse.length - here))
        throw new Error(
          `dashboard says "${meta}", seeded ${here} in use in the workspace and ${inUse.length - here} elsewhere`,
        );
      if (!meta.includes('Xenova/all-MiniLM-L6-v2'))
        throw new Error(`dashboard meta does not name the model: ${meta}`);
      log(`dashboard: ${meta}`);
      await screenshot('dashboard');
    },
  },
];
