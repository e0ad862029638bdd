// UI: "Mnemo: Open Dashboard" renders the per-project counts. A project of its
// own (not a workspace folder, so no other test changes it) is seeded with
// known memories; the webview's numbers and histogram must match them. The
// webview lives two iframes deep (VS Code's webview host, then the content).
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
    ],
  },
];

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
      const mine = s.memories.filter((m) => m.project_id === PROJECT);
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
      const section = frame.locator(`section[aria-label="${PROJECT}"]`);
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
      const bars = await section
        .locator('.hist button.bar')
        .evaluateAll((els) =>
          els.map((e) => Number(/^(\d+) with confidence/.exec(e.getAttribute('title') ?? '')?.[1] ?? NaN)),
        );
      if (JSON.stringify(bars) !== JSON.stringify(want.hist)) {
        throw new Error(
          `confidence histogram shows ${JSON.stringify(bars)}, expected ${JSON.stringify(want.hist)}`,
        );
      }

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

      // Header: the store-wide total and the embedding model.
      const meta = (await frame.locator('p.meta').textContent()) ?? '';
      const total = Number(/^(\d+) memories/.exec(meta)?.[1]);
      if (!(total >= s.memories.length))
        throw new Error(`dashboard says "${meta}", seeded ${s.memories.length}`);
      if (!meta.includes('Xenova/all-MiniLM-L6-v2'))
        throw new Error(`dashboard meta does not name the model: ${meta}`);
      log(`dashboard: ${meta}`);
      await screenshot('dashboard');
    },
  },
];
