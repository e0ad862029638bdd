// UI (issue 19): the Memories tree is scannable at the default side bar width — a flat "Recent" mode,
// the text first and the category/confidence/age in words, wrong memories behind an "N hidden" row
// with no letter badge; Enter on a chat memory opens its details with the conversation it came from;
// Preview Injection renders with the near misses and why; an empty Search box lists the latest memories.
// Each test puts the tree back as it found it (grouped, hidden rows hidden): later tests walk it.
import { pollUntil } from '../lib/processes.mjs';
import {
  CATEGORY_LABEL,
  detailsTitle,
  inlineAction,
  openMemories,
  projectRow,
  rowInfo,
  seeded,
  shortText,
  showMemory,
  treeRow,
  visibleRows,
  webviewFrame,
} from './support/mnemo.mjs';

const RUNNER = 'Remember this: the release job must always run on the large runner pool.';
const CACHE = 'We decided to keep build artifacts in the cache for 14 days.';
const STALE = 'We decided to run the release job on the tiny runner pool with 2 GB of disk.';

/** VS Code's side bar as a new window opens it. */
const DEFAULT_WIDTH = 300;

export const seed = [
  {
    sourceType: 'chat',
    messages: [
      { role: 'user', content: 'Can you look at why the release job failed last night?' },
      { role: 'assistant', content: 'The release job ran out of disk on the runner.' },
      { role: 'user', content: RUNNER },
    ],
  },
  {
    sourceType: 'manual',
    messages: [
      { role: 'user', content: CACHE },
      { role: 'user', content: STALE },
    ],
  },
];

/** Drags the side bar's sash to `width` px (narrower or wider). */
async function setSidebarWidth(page, width) {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box) return undefined;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width - 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
  return (await page.locator('.part.sidebar').boundingBox())?.width;
}

/** The ::after content of a row's label: where a FileDecoration badge letter would be. */
async function badgeOf(row) {
  return row
    .locator('.monaco-icon-label')
    .first()
    .evaluate((el) => getComputedStyle(el, '::after').content);
}

export const tests = [
  {
    name: 'Recent mode at the default width: text first, category and confidence in words, wrong ones behind "N hidden", no letter badges',
    timeoutMs: 180_000,
    async run(ctx) {
      const { page, wb, seed: s, screenshot, log } = ctx;
      const pane = await openMemories(ctx);
      // Start from the defaults whatever an earlier test left (the options are kept per workspace).
      await wb.runCommand('Mnemo: Hide Wrong and Archived');
      await wb.runCommand('Mnemo: Show Recent (Flat List)');
      try {
        const project = projectRow(pane);
        if ((await project.getAttribute('aria-expanded')) !== 'true') await project.click();
        // One level under the project: the memories themselves, newest first.
        const cache = treeRow(pane, 2, shortText(CACHE)).first();
        await cache.waitFor({ state: 'visible', timeout: 30_000 }).catch(async (e) => {
          throw new Error(`${e.message}\ntree rows: ${(await visibleRows(pane)).join(' | ')}`);
        });
        const info = await rowInfo(cache);
        const m = seeded(s, CACHE);
        const expected = `${CATEGORY_LABEL[m.category]} · ${Math.round(m.confidence_score * 100)}%`;
        if (!info.description.startsWith(expected))
          throw new Error(
            `"${info.label}" shows "${info.description}", expected it to start with "${expected}"`,
          );
        const width = await setSidebarWidth(page, DEFAULT_WIDTH);
        log(`side bar ${width}px; rows: ${(await visibleRows(pane)).join(' | ')}`);
        // At the default width the label still starts with the memory's own words.
        const shown = await cache
          .locator('.label-name')
          .first()
          .evaluate((el) => el.getBoundingClientRect().width);
        if (!(shown > 100)) throw new Error(`the label is ${shown}px wide at the default width`);
        await screenshot('recent-default-width');

        // Mark one wrong: it leaves the list, and the project says how many are hidden.
        await wb.widenSidebar(520);
        const stale = treeRow(pane, 2, shortText(STALE)).first();
        await stale.waitFor({ state: 'visible', timeout: 20_000 });
        await stale.hover();
        const action = inlineAction(stale, 'Mark as Wrong');
        await action.waitFor({ state: 'visible', timeout: 10_000 });
        await action.click();
        await stale.waitFor({ state: 'detached', timeout: 20_000 });
        const hidden = treeRow(pane, 2, /^\d+ hidden$/).first();
        await hidden.waitFor({ state: 'visible', timeout: 20_000 });
        const h = await rowInfo(hidden);
        if (!/\d+ wrong/.test(h.description)) throw new Error(`hidden row says "${h.description}"`);
        await setSidebarWidth(page, DEFAULT_WIDTH);
        await screenshot('hidden-row');

        // Clicking it lists them: the wrong one says "wrong" in words and carries no badge letter.
        await hidden.click();
        const back = treeRow(pane, 2, shortText(STALE)).first();
        await back.waitFor({ state: 'visible', timeout: 20_000 });
        const w = await pollUntil(
          async () => {
            const i = await rowInfo(back);
            return /\bwrong\b/.test(i.description) ? i : undefined;
          },
          { timeoutMs: 10_000, what: 'the wrong memory to say "wrong"' },
        );
        const badge = await badgeOf(back);
        if (/[A-Z]/.test(badge.replace(/^none$/, ''))) throw new Error(`a letter badge is shown: ${badge}`);
        log(`wrong row: ${w.label} — ${w.description}; badge ${badge}`);
        await screenshot('hidden-shown');
      } finally {
        await wb.runCommand('Mnemo: Hide Wrong and Archived').catch(() => {});
        await wb.runCommand('Mnemo: Show Grouped by Category and Source').catch(() => {});
        await wb.widenSidebar(520).catch(() => {});
      }
    },
  },
  {
    name: 'Enter on a chat memory opens its details with the conversation it came from, its turn highlighted',
    timeoutMs: 150_000,
    async run(ctx) {
      const { page, seed: s, screenshot } = ctx;
      // The pipeline may keep the rule without its "Remember this:" lead-in.
      const m = s.memories.find((x) => x.text.includes('large runner pool'));
      if (!m) throw new Error(`the runner rule was not kept: ${s.memories.map((x) => x.text).join(' | ')}`);
      const pane = await openMemories(ctx);
      const row = await showMemory(pane, { category: m.category, sourceType: 'chat', text: m.text });
      // Only the details this test opens: earlier tests may leave another memory's details open.
      await ctx.wb.runCommand('View: Close All Editors').catch(() => {});
      // Select it with the keyboard: focus the row above, then ArrowDown, then Enter.
      await row.click();
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      // The details are a page titled by the memory (views/details.ts): the memory in full, then under
      // "Where it came from" the conversation, the memory's own turn marked ▶ and highlighted.
      await page
        .locator('.part.editor .tab.active', { hasText: detailsTitle(m) })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      const details = webviewFrame(page);
      const title = details.locator('h1').first();
      await title.waitFor({ state: 'visible', timeout: 30_000 });
      if ((await title.textContent()) !== m.text)
        throw new Error(`the details show "${await title.textContent()}"`);
      await details
        .locator('h2', { hasText: /^Where it came from$/ })
        .waitFor({ state: 'attached', timeout: 30_000 });
      const turn = details.locator('.own', { hasText: '▶' }).first();
      await turn.waitFor({ state: 'attached', timeout: 10_000 });
      await turn.scrollIntoViewIfNeeded();
      const text = ((await turn.textContent()) ?? '').replace(/\u00a0/g, ' ');
      if (!/large runner pool/.test(text)) throw new Error(`the marked turn is "${text}"`);
      const [turnBg, pageBg] = await turn.evaluate((el) => [
        getComputedStyle(el).backgroundColor,
        getComputedStyle(document.body).backgroundColor,
      ]);
      if (turnBg === pageBg || /^(transparent|rgba\(0, 0, 0, 0\))$/.test(turnBg))
        throw new Error(`the memory's own turn is not highlighted: ${turnBg} on ${pageBg}`);
      await details
        .locator('pre', { hasText: 'ran out of disk' })
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 });
      await screenshot('details-evidence');
      await ctx.wb.runCommand('View: Close All Editors').catch(() => {});
    },
  },
  {
    name: 'Preview Injection renders what is recalled and why near memories are not',
    timeoutMs: 150_000,
    async run(ctx) {
      const { page, wb, screenshot } = ctx;
      await wb.runCommand('Mnemo: Preview Injection');
      await wb.waitQuickInputFocused();
      await page.keyboard.type('Which runner pool does the release job use?');
      await page.keyboard.press('Enter');
      const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
      await frame.locator('h1', { hasText: 'What an agent would receive' }).waitFor({ timeout: 45_000 });
      await frame.locator('h2', { hasText: /^Recalled \(\d+\)/ }).waitFor({ timeout: 10_000 });
      await frame.locator('h2', { hasText: /^Not recalled/ }).waitFor({ timeout: 10_000 });
      const table = (await frame.locator('table').allTextContents()).join('\n');
      if (!/large runner pool/.test(table)) throw new Error(`the recalled table lacks the memory: ${table}`);
      await screenshot('preview-injection');
      await wb.runCommand('View: Close All Editors').catch(() => {});
    },
  },
  {
    name: 'Search Memories with an empty box lists the latest memories; by meaning finds the runner rule',
    timeoutMs: 120_000,
    async run(ctx) {
      const { page, wb, screenshot } = ctx;
      await wb.runCommand('Mnemo: Search Memories');
      const widget = page.locator('.quick-input-widget');
      await widget
        .locator('.quick-input-title', { hasText: 'meaning and words' })
        .waitFor({ state: 'visible', timeout: 45_000 });
      // The empty box lists the latest memories (which ones depends on what earlier tests stored; the list
      // is virtualised, so only its first rows are rendered): the "Latest memories" separator and a full page.
      await widget
        .locator('.quick-input-list .monaco-list-row', { hasText: 'Latest memories' })
        .first()
        .waitFor({ state: 'visible', timeout: 20_000 });
      await pollUntil(
        async () =>
          (await widget.locator('.quick-input-list .monaco-list-row:visible').count()) >= 5 || undefined,
        { timeoutMs: 20_000, intervalMs: 250, what: 'at least 5 of the latest memories listed' },
      );
      await screenshot('search-latest');
      await wb.waitQuickInputFocused();
      await page.keyboard.type('which machines build our releases', { delay: 20 });
      // A search result (its detail says how it matched, in words, no percentage), not the latest list
      // still shown while typing.
      const rows = widget.locator('.quick-input-list .monaco-list-row:visible');
      const texts = async () => (await rows.allTextContents()).map((t) => t.replace(/\s+/g, ' '));
      await pollUntil(
        async () =>
          (await texts()).some((t) => t.includes('large runner pool') && t.includes('by meaning')) ||
          undefined,
        { timeoutMs: 30_000, intervalMs: 250, what: 'the runner rule found "by meaning"' },
      ).catch(async (e) => {
        throw new Error(`${e.message}; rows: ${(await texts()).join(' | ')}`);
      });
      await screenshot('search-hybrid');
      await page.keyboard.press('Escape');
    },
  },
];
