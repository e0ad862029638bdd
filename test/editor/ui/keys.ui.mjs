// UI (issue 19): the Memories view by keyboard and from its title bar. F2 on a focused memory opens the
// edit form on it; Delete asks in a modal naming it (with Mark as Wrong offered instead) and Cancel keeps
// it; Filter… (view title) narrows the tree to one category and says so in the tree's first row
// ("Filtered: …"), Clear Filter brings the rest back. Each test puts the tree back as it found it (no
// filter): later tests walk it.
import { pollUntil } from '../lib/processes.mjs';
import {
  CATEGORY_LABEL,
  detailsTitle,
  openMemories,
  projectRow,
  seeded,
  shortText,
  showMemory,
  treeRow,
  visibleRows,
} from './support/mnemo.mjs';

const EDIT_ME = 'We decided to store the feature flags in flags.yaml at the repository root.';
const DELETE_ME = 'Remember that the staging database is reset every Sunday at 03:00 UTC.';
/** The pipeline may keep a rule without its "Remember that" lead-in. */
const kept = (s, words) => {
  const m = s.memories.find((x) => x.text.includes(words));
  if (!m) throw new Error(`"${words}" was not kept: ${s.memories.map((x) => x.text).join(' | ')}`);
  return m;
};

export const seed = [
  {
    sourceType: 'manual',
    messages: [
      { role: 'user', content: EDIT_ME },
      { role: 'user', content: DELETE_ME },
    ],
  },
];

/**
 * Clicks a row so the tree has the focus on it (the keybindings need listFocus in the Memories view). The
 * click also opens the memory's details page (focus kept in the tree), titled by the memory; that tab is
 * waited for, so it does not open later over what the key opens.
 */
async function focusRow(page, row, m) {
  const details = page.locator('.part.editor .tab.active', { hasText: detailsTitle(m) }).first();
  for (let attempt = 1; ; attempt++) {
    await row.click();
    try {
      await details.waitFor({ state: 'visible', timeout: attempt === 1 ? 10_000 : 30_000 });
      break;
    } catch (e) {
      // a click that lands while the tree re-renders (a refresh after the previous test's edit) only
      // focuses the row: click it once more
      if (attempt === 2) throw e;
    }
  }
  await pollUntil(async () => /\bfocused\b/.test((await row.getAttribute('class')) ?? '') || undefined, {
    timeoutMs: 10_000,
    intervalMs: 100,
    what: 'the memory row to have the focus',
  });
}

/**
 * Runs a view-title action of the Memories pane (inline, or under its "…" menu) and waits for the quick
 * pick it opens; a second try when the first click went to a header still re-rendering.
 */
async function titleAction(page, wb, pane, label) {
  const header = pane.locator('.pane-header').first();
  for (let attempt = 1; ; attempt++) {
    await wb.dismiss();
    await header.hover();
    const inline = header.locator(`.actions .action-label[aria-label^="${label}"]`);
    if (await inline.count()) await inline.first().click();
    else {
      await header.locator('.actions .action-label[aria-label^="More Actions"]').first().click();
      await page
        .locator('.context-view .monaco-menu .action-item', { hasText: label })
        .first()
        .click({ timeout: 10_000 });
    }
    try {
      await wb.waitQuickInputFocused(attempt === 1 ? 10_000 : 20_000);
      return;
    } catch (e) {
      if (attempt === 2) throw new Error(`${label} (view title) opened no quick pick: ${e.message}`);
    }
  }
}

/** Picks the quick pick row whose label is `label` (clicked: the rows carry codicons before the words). */
async function pick(page, wb, label) {
  await wb.waitQuickInputFocused(20_000);
  const row = page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: label }) })
    .first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.click();
}

export const tests = [
  {
    name: 'F2 on a focused memory opens the edit form on it',
    async run(ctx) {
      const { page, wb, seed: s, screenshot } = ctx;
      const m = seeded(s, EDIT_ME);
      const pane = await openMemories(ctx);
      const row = await showMemory(pane, { category: m.category, sourceType: m.source_type, text: EDIT_ME });
      await focusRow(page, row, m);
      await page.keyboard.press('F2');
      await page
        .locator('.part.editor .tab', { hasText: 'Edit:' })
        .first()
        .waitFor({ state: 'visible', timeout: 20_000 });
      const text = page
        .frameLocator('iframe.webview.ready')
        .last()
        .frameLocator('iframe#active-frame')
        .locator('textarea#text');
      await text.waitFor({ state: 'visible', timeout: 30_000 });
      if ((await text.inputValue()) !== EDIT_ME)
        throw new Error(`F2 opened the form on "${await text.inputValue()}"`);
      await screenshot('f2-edit-form');
      await wb.runCommand('View: Close All Editors');
    },
  },
  {
    name: 'Delete on a focused memory asks in a modal naming it, Mark as Wrong offered; Cancel keeps it',
    async run(ctx) {
      const { page, seed: s, screenshot } = ctx;
      const m = kept(s, 'staging database is reset');
      const pane = await openMemories(ctx);
      const row = await showMemory(pane, { category: m.category, sourceType: m.source_type, text: m.text });
      await focusRow(page, row, m);
      await page.keyboard.press('Delete');
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: 20_000 });
      const said = ((await dialog.textContent()) ?? '').replace(/\s+/g, ' ');
      if (!said.includes(`Delete “${shortText(m.text, 80)}” for good?`))
        throw new Error(`the Delete modal does not name the focused memory: ${said}`);
      const buttons = await dialog.locator('.dialog-buttons .monaco-button').allTextContents();
      if (!buttons.includes('Mark as Wrong') || !buttons.includes('Delete'))
        throw new Error(`the Delete modal offers ${buttons.join(' | ')}`);
      await screenshot('delete-modal');
      // Cancel: other tests count the seeded memories, so this one stays.
      await dialog
        .locator('.dialog-buttons .monaco-button', { hasText: /^Cancel$/ })
        .first()
        .click();
      await dialog.waitFor({ state: 'detached', timeout: 10_000 });
      await row.waitFor({ state: 'visible', timeout: 10_000 });
      await ctx.wb.runCommand('View: Close All Editors').catch(() => {});
    },
  },
  {
    name: 'Filter… from the view title narrows the tree to a category and says so; Clear Filter undoes it',
    timeoutMs: 150_000,
    async run(ctx) {
      const { page, wb, seed: s, screenshot } = ctx;
      const m = seeded(s, EDIT_ME);
      const label = CATEGORY_LABEL[m.category];
      const pane = await openMemories(ctx);
      const project = projectRow(pane);
      try {
        await titleAction(page, wb, pane, 'Filter Memories');
        await pick(page, wb, 'Category');
        await pick(page, wb, label);
        const filterRow = pane.locator('.monaco-list-row', { hasText: 'Filtered:' }).first();
        await pollUntil(
          async () =>
            ((await filterRow.count()) && ((await filterRow.textContent()) ?? '').includes(label)) ||
            undefined,
          { timeoutMs: 15_000, intervalMs: 200, what: `the tree's first row to say "Filtered: … ${label}"` },
        );
        if ((await project.getAttribute('aria-expanded')) !== 'true') await project.click();
        await treeRow(pane, 2, label).first().waitFor({ state: 'visible', timeout: 20_000 });
        const others = Object.values(CATEGORY_LABEL).filter((c) => c !== label);
        await pollUntil(
          async () => {
            for (const c of others) if (await treeRow(pane, 2, c).count()) return undefined;
            return true;
          },
          {
            timeoutMs: 15_000,
            intervalMs: 200,
            what: `only ${label} under the project (rows: ${(await visibleRows(pane)).join(' | ')})`,
          },
        );
        await screenshot('filtered-by-category');
      } finally {
        await titleAction(page, wb, pane, 'Filter Memories').catch(() => {});
        await pick(page, wb, 'Clear Filter').catch(() => {});
      }
      const filterRow = pane.locator('.monaco-list-row', { hasText: 'Filtered:' });
      await pollUntil(async () => !(await filterRow.count()) || undefined, {
        timeoutMs: 15_000,
        intervalMs: 200,
        what: 'the filter to be cleared',
      });
    },
  },
];
