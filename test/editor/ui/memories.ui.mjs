// UI: the Memories tree of the fixture workspace shows memories (seeded before
// code-server starts, and one remembered through the command palette), and
// "Mark as Wrong" from a tree item's inline action hides the node behind "N hidden".
import { pollUntil } from '../lib/processes.mjs';
import {
  clearHover,
  inlineAction,
  openMemories,
  rowInfo,
  seeded,
  showMemory,
  treeRow,
  visibleRows,
} from './support/mnemo.mjs';

const GATEWAY = 'We decided to keep the gateway timeout at 1500ms for PLC-3000.';
const PREFERENCE = 'I prefer tabs over spaces in this repository.';
const BILLING = 'Always restart the legacy-billing worker after changing its config.';

/** Ingested into the workspace folder's project before code-server starts (lib/seed.mjs). */
export const seed = [
  {
    sourceType: 'manual',
    messages: [
      { role: 'user', content: GATEWAY },
      { role: 'user', content: PREFERENCE },
      { role: 'user', content: BILLING },
    ],
  },
];

export const tests = [
  {
    name: 'the Mnemo view shows the seeded memories of the workspace',
    async run(ctx) {
      const { seed: s, screenshot } = ctx;
      const pane = await openMemories(ctx);
      for (const text of [GATEWAY, PREFERENCE]) {
        const m = seeded(s, text);
        const row = await showMemory(pane, { category: m.category, sourceType: m.source_type, text }).catch(
          async (e) => {
            throw new Error(`${e.message}\ntree rows: ${(await visibleRows(pane)).join(' | ')}`);
          },
        );
        const info = await rowInfo(row);
        // description(): "<confidence>% · <age> · <marks>"
        const pct = `${Math.round(m.confidence_score * 100)}%`;
        if (!info.description.startsWith(pct))
          throw new Error(`"${info.label}" shows "${info.description}", expected it to start with ${pct}`);
      }
      await screenshot('seeded-memories');
    },
  },
  {
    name: 'Remember Selection from the command palette adds the line to the tree',
    async run(ctx) {
      const { page, wb, screenshot } = ctx;
      const t0 = Date.now();
      const log = (m) => ctx.log(`+${Date.now() - t0}ms ${m}`);
      // Open notes.md with Quick Open, go to line 3 (the cursor's line is remembered when nothing is selected).
      await wb.dismiss();
      await wb.focusEditorArea();
      await page.keyboard.press('Control+P');
      const quick = page.locator('.quick-input-widget');
      await quick.waitFor({ state: 'visible', timeout: 45_000 });
      await wb.waitQuickInputFocused();
      await page.keyboard.type('notes.md');
      await quick
        .locator('.quick-input-list .monaco-list-row', { hasText: 'notes.md' })
        .first()
        .waitFor({ state: 'visible', timeout: 45_000 });
      await page.keyboard.press('Enter');
      log('quick open: notes.md');
      const editor = page.locator('.part.editor .monaco-editor[data-uri$="notes.md"]').first();
      await editor.waitFor({ state: 'visible', timeout: 45_000 });
      await page
        .locator('.part.editor .tabs-container .tab.active', { hasText: 'notes.md' })
        .waitFor({ state: 'visible', timeout: 45_000 });
      await page.keyboard.press('Control+G');
      await quick.waitFor({ state: 'visible', timeout: 45_000 });
      await wb.waitQuickInputFocused();
      await page.keyboard.type('4');
      await page.keyboard.press('Enter');
      await quick.waitFor({ state: 'hidden', timeout: 45_000 });
      const line = '- The sidecar talks JSON-RPC over stdio.';
      await page
        .locator('.part.editor .monaco-editor .view-line', { hasText: 'JSON-RPC' })
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 });

      log('line 4 shown');
      await wb.runCommand('Mnemo: Remember Selection');
      log('command run');
      // Success names the file:line; failures (no editor, nothing kept, sidecar errors) say so: stop at either.
      const toast = await wb.waitForNotification(
        /notes\.md:4|did not keep|failed|Open a file|select the text/,
        60_000,
      );
      const message = ((await toast.textContent()) ?? '').trim();
      log(`notification: ${message}`);
      if (!/Remembered/.test(message) || !/notes\.md:4/.test(message))
        throw new Error(`unexpected notification: ${message}`);
      const category = /as (Persona|Episodic|Instruction)/.exec(message)?.[1]?.toLowerCase() ?? 'instruction';

      const pane = await openMemories(ctx);
      log('view open');
      const row = await showMemory(pane, { category, sourceType: 'manual', text: line }).catch(async (e) => {
        throw new Error(`${e.message}\ntree rows: ${(await visibleRows(pane)).join(' | ')}`);
      });
      const info = await rowInfo(row);
      // Remembered on request: confirmed by the person who asked.
      if (!/confirmed/.test(info.description))
        throw new Error(`"${info.label}" shows "${info.description}", expected "confirmed"`);
      await screenshot('remembered');
    },
  },
  {
    name: 'Mark as Wrong (inline action on a tree item) hides the node behind "N hidden"; shown, it says wrong without a letter badge',
    async run(ctx) {
      const { page, wb, seed: s, screenshot } = ctx;
      const m = seeded(s, BILLING);
      const pane = await openMemories(ctx);
      const row = await showMemory(pane, { category: m.category, sourceType: m.source_type, text: BILLING });
      const before = await rowInfo(row);
      if (/wrong/.test(before.description)) throw new Error(`already wrong: ${before.description}`);

      // Inline actions show on hover / selection.
      await row.hover();
      const action = inlineAction(row, 'Mark as Wrong');
      await action.waitFor({ state: 'visible', timeout: 10_000 });
      await action.click();

      // Issue 19 changed this: a wrong memory is hidden by default (it used to stay listed with a W badge);
      // the project's "N hidden" row counts it and shows it on a click.
      await row.waitFor({ state: 'detached', timeout: 20_000 });
      const hidden = treeRow(pane, 2, /^\d+ hidden$/).first();
      await hidden.waitFor({ state: 'visible', timeout: 20_000 });
      if (!/\d+ wrong/.test((await rowInfo(hidden)).description))
        throw new Error(`the hidden row says "${(await rowInfo(hidden)).description}"`);
      await page
        .locator('.notifications-toasts', { hasText: 'as wrong' })
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 });
      await screenshot('marked-wrong-hidden');
      // The pointer stayed over the tree after the inline action: its row tooltip would take this click.
      await clearHover(page);
      await hidden.click();
      try {
        const shown = await showMemory(pane, {
          category: m.category,
          sourceType: m.source_type,
          text: BILLING,
        });
        const after = await pollUntil(
          async () => {
            const info = await rowInfo(shown);
            return /\bwrong\b/.test(info.description) ? info : undefined;
          },
          { timeoutMs: 20_000, what: `"${before.label}" to be listed as wrong` },
        );
        // present.ts: the marks say "wrong" in words, the screen-reader label too, the label is coloured
        // errorForeground, no letter badge; the inline action is gone (contextValue mnemo:memory:wrong).
        if (!/\bwrong\b/.test(after.ariaLabel))
          throw new Error(`aria-label lacks "wrong": ${after.ariaLabel}`);
        await shown.hover();
        await inlineAction(shown, 'Confirm').waitFor({ state: 'visible', timeout: 10_000 });
        if ((await inlineAction(shown, 'Mark as Wrong').count()) !== 0)
          throw new Error('Mark as Wrong is still offered on a wrong memory');
        const badge = await shown
          .locator('.monaco-icon-label')
          .first()
          .evaluate((el) => getComputedStyle(el, '::after').content);
        if (/[A-Z]/.test(badge.replace(/^none$/, ''))) throw new Error(`a letter badge is shown: ${badge}`);
        await screenshot('marked-wrong');
      } finally {
        await wb.runCommand('Mnemo: Hide Wrong and Archived').catch(() => {});
      }
    },
  },
];
