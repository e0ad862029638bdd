// UI: "Mnemo: Search Memories" driven by the keyboard — type a query into the
// QuickPick, press Enter, and the Memories tree reveals and selects the memory.
import { pollUntil } from '../lib/processes.mjs';
import {
  CATEGORY_LABEL,
  childRow,
  collapseAll,
  openMemories,
  projectRow,
  rowInfo,
  seeded,
  shortText,
  SOURCE_LABEL,
  treeRow,
  visibleRows,
} from './support/mnemo.mjs';

const QUOKKA = 'The Quokka release pipeline deploys to staging before production.';

// Two lines: the pipeline skips sessions with fewer (when this module runs alone).
export const seed = [
  {
    sourceType: 'manual',
    messages: [
      { role: 'user', content: QUOKKA },
      { role: 'user', content: 'We decided to tag every release build with its git commit hash.' },
    ],
  },
];

export const tests = [
  {
    name: 'Search Memories: type, Enter, and the tree reveals the memory and its details open beside',
    async run(ctx) {
      const { page, wb, seed: s, screenshot, log } = ctx;
      const m = seeded(s, QUOKKA);
      // Start from a collapsed tree so the reveal has to expand project > category > source.
      const pane = await openMemories(ctx);
      await collapseAll(pane);

      await wb.runCommand('Mnemo: Search Memories', { keyboard: true });
      const widget = page.locator('.quick-input-widget');
      await widget
        .locator('.quick-input-title', { hasText: 'Search Memories' })
        .waitFor({ state: 'visible', timeout: 45_000 });
      // Type like a person, once the keyboard focus is in the QuickPick's input.
      await wb.waitQuickInputFocused();
      await page.keyboard.type('quokka', { delay: 30 });
      const result = widget
        .locator('.quick-input-list .monaco-list-row', { hasText: 'Quokka release pipeline' })
        .first();
      await result.waitFor({ state: 'visible', timeout: 20_000 });
      // The search is debounced and results replace the list: wait for them to settle (not busy),
      // then move the active row to the memory with the arrow keys, as a person would.
      await pollUntil(
        async () => !(await widget.locator('.quick-input-progress-bar .progress-bit:visible').count()),
        {
          timeoutMs: 10_000,
          what: 'the search to finish',
        },
      );
      const activeIsTarget = async () => {
        const active = widget.locator('.quick-input-list .monaco-list-row.focused');
        return (
          (await active.count()) === 1 && /Quokka release pipeline/.test((await active.textContent()) ?? '')
        );
      };
      await pollUntil(
        async () => {
          if (await activeIsTarget()) return true;
          await page.keyboard.press('ArrowDown');
          return activeIsTarget();
        },
        { timeoutMs: 10_000, intervalMs: 250, what: 'the Quokka result to be the active QuickPick row' },
      );
      await screenshot('results');
      await page.keyboard.press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: 10_000 });

      // Revealed: the path is expanded and the memory row is selected (and focused).
      const row = treeRow(pane, 4, shortText(QUOKKA)).first();
      await row.waitFor({ state: 'visible', timeout: 20_000 }).catch(async (e) => {
        throw new Error(`${e.message}\ntree rows: ${(await visibleRows(pane)).join(' | ')}`);
      });
      const info = await pollUntil(
        async () => {
          const i = await rowInfo(row);
          return i.selected ? i : undefined;
        },
        { timeoutMs: 10_000, what: 'the revealed memory to be selected' },
      );
      log(`revealed: ${info.label} (${info.description})`);
      // The reveal expanded the memory's own path: workspace > its category > its source.
      let parent = projectRow(pane);
      for (const label of [CATEGORY_LABEL[m.category], SOURCE_LABEL[m.source_type]]) {
        parent = await childRow(pane, parent, label);
        if ((await parent.getAttribute('aria-expanded')) !== 'true')
          throw new Error(`${label} was not expanded by the reveal`);
      }
      await childRow(pane, parent, shortText(QUOKKA));
      // And its details open beside, titled by the memory, the focus left on the tree row.
      await page
        .locator('.tabs-container .tab', { hasText: shortText(QUOKKA, 40) })
        .first()
        .waitFor({ state: 'visible', timeout: 20_000 })
        .catch(async (e) => {
          const tabs = await page.locator('.tabs-container .tab').allTextContents();
          throw new Error(`${e.message}\nSearch's Enter did not open the details; tabs: ${tabs.join(' | ')}`);
        });
      await screenshot('revealed');
    },
  },
];
