// UI: "Edit Memory" (the inline action of a tree item) opens the edit form with the memory's current
// values — its category already chosen — and fixing a typo in the text then pressing Ctrl+Enter saves
// the text alone: the memory stays in its category, and the status bar (not a notification) says
// "…: text". Issue 19 item 1: Enter through the old five steps moved memories to Persona.
// Issue 38 item 9: a changed form marks its tab "●"; Escape asks before it discards; closing the tab of
// a changed form offers the changes back.
import { pollUntil } from '../lib/processes.mjs';
import { openMemories, rowInfo, seeded, shortText, showMemory, statusItem } from './support/mnemo.mjs';

const TYPO = 'Always run the smoke tets before tagging a release of the billing service.';
const FIXED = 'Always run the smoke tests before tagging a release of the billing service.';
const KEEP = 'We decided to keep billing invoices for 10 years.';
const ADDED = ' Legal signs off on any shorter period.';

export const seed = [
  {
    sourceType: 'manual',
    messages: [
      { role: 'user', content: TYPO },
      { role: 'user', content: KEEP },
    ],
  },
];

/** The tab of an open edit form. */
function formTab(page) {
  return page.locator('.part.editor .tab', { hasText: 'Edit:' }).first();
}

/** Opens the edit form of a memory row by its inline action; resolves with the form's text box. */
async function openForm(page, row) {
  await row.hover();
  const action = row.locator('.actions .action-label[aria-label^="Edit Memory"]');
  await action.waitFor({ state: 'visible', timeout: 10_000 });
  await action.click();
  await formTab(page).waitFor({ state: 'visible', timeout: 20_000 });
  const text = formFrame(page).locator('textarea#text');
  await text.waitFor({ state: 'visible', timeout: 30_000 });
  return text;
}

/** Waits for the form's tab to read as changed ("● Edit: …") or not. */
async function tabDirty(page, dirty) {
  return pollUntil(
    async () => {
      const label = (
        (await formTab(page)
          .textContent()
          .catch(() => '')) ?? ''
      ).trim();
      return label.startsWith('●') === dirty ? label : undefined;
    },
    { timeoutMs: 10_000, what: `the form's tab to read ${dirty ? '"● Edit: …"' : '"Edit: …" without ●'}` },
  );
}

/** The edit form's content frame (VS Code's webview iframe, then the content's #active-frame). */
function formFrame(page) {
  return page.frameLocator('iframe.webview.ready').last().frameLocator('iframe#active-frame');
}

export const tests = [
  {
    name: 'Edit Memory opens with the current category; fixing the text saves the text alone',
    async run(ctx) {
      const { page, seed: s, screenshot } = ctx;
      const m = seeded(s, TYPO);
      if (m.category === 'persona')
        throw new Error(
          'the seeded memory must not already be Persona (the old trap) for this test to prove anything',
        );
      const pane = await openMemories(ctx);
      const row = await showMemory(pane, { category: m.category, sourceType: m.source_type, text: TYPO });
      await row.hover();
      // "Edit Memory (F2)": the label carries the keybinding.
      const action = row.locator('.actions .action-label[aria-label^="Edit Memory"]');
      await action.waitFor({ state: 'visible', timeout: 10_000 });
      await action.click();

      await page
        .locator('.part.editor .tab', { hasText: 'Edit:' })
        .first()
        .waitFor({ state: 'visible', timeout: 20_000 });
      const form = formFrame(page);
      const text = form.locator('textarea#text');
      await text.waitFor({ state: 'visible', timeout: 30_000 });
      if ((await text.inputValue()) !== TYPO)
        throw new Error(`the form opened with "${await text.inputValue()}"`);
      const current = form.locator(`input[name=category][value=${m.category}]`);
      if (!(await current.isChecked()))
        throw new Error(`the form does not open on the current category ${m.category}`);
      if ((await form.locator('input#actionable').isChecked()) !== m.is_actionable)
        throw new Error('the form does not open with the current "actionable"');
      await screenshot('form-opened');

      await text.fill(FIXED);
      await text.press('Control+Enter');
      await page
        .locator('.part.editor .tab', { hasText: 'Edit:' })
        .first()
        .waitFor({ state: 'hidden', timeout: 20_000 });

      // Feedback in the status bar, naming what changed; no notification toast.
      const said = await pollUntil(
        async () => {
          const label =
            (await statusItem(page)
              .getAttribute('aria-label')
              .catch(() => null)) ?? '';
          return /Updated “.*”: text\./.test(label) ? label : undefined;
        },
        { timeoutMs: 15_000, what: 'the status bar to say "Updated …: text"' },
      );
      ctx.log(`status bar: ${said}`);
      if (/category/.test(said)) throw new Error(`the category changed: ${said}`);
      if (
        (await page.locator('.notifications-toasts .notification-toast', { hasText: 'Updated' }).count()) > 0
      )
        throw new Error('a toast said "Updated"');

      // The memory is still in its category, with the fixed text.
      const fixed = await showMemory(pane, { category: m.category, sourceType: m.source_type, text: FIXED });
      const info = await rowInfo(fixed);
      if (info.label !== shortText(FIXED)) throw new Error(`the row reads "${info.label}"`);
      await screenshot('text-fixed');
    },
  },
  {
    name: 'a changed form marks its tab ●; Escape asks before discarding; a closed tab offers the changes back',
    timeoutMs: 150_000,
    async run(ctx) {
      const { page, seed: s, screenshot } = ctx;
      const m = seeded(s, KEEP);
      const pane = await openMemories(ctx);
      const row = await showMemory(pane, { category: m.category, sourceType: m.source_type, text: KEEP });
      const text = await openForm(page, row);
      await tabDirty(page, false);

      // Typing marks the tab as changed; Escape then asks, and Escape again goes back to the text.
      await text.press('End');
      await text.pressSequentially(ADDED);
      ctx.log(`changed: ${await tabDirty(page, true)}`);
      const confirm = formFrame(page).locator('#confirm');
      await text.press('Escape');
      await confirm.waitFor({ state: 'visible', timeout: 10_000 });
      const asked = ((await confirm.textContent()) ?? '').replace(/\s+/g, ' ');
      if (!asked.includes('Discard your changes to this memory?')) throw new Error(`Escape said: ${asked}`);
      await screenshot('escape-asks');
      await page.keyboard.press('Escape');
      await confirm.waitFor({ state: 'hidden', timeout: 10_000 });
      if ((await text.inputValue()) !== KEEP + ADDED) throw new Error('Escape twice lost the change');
      await tabDirty(page, true);

      // Closing the tab (Ctrl+W, the editor's own close) keeps nothing, but offers the changes back.
      await formTab(page).click();
      await page.keyboard.press('Control+w');
      await formTab(page).waitFor({ state: 'detached', timeout: 15_000 });
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'were not saved' });
      await toast.waitFor({ state: 'visible', timeout: 15_000 });
      await screenshot('closed-offers-changes-back');
      await toast.locator('.monaco-button', { hasText: 'Reopen Them' }).click();
      const again = formFrame(page).locator('textarea#text');
      await again.waitFor({ state: 'visible', timeout: 30_000 });
      if ((await again.inputValue()) !== KEEP + ADDED)
        throw new Error(`the reopened form lost the change: "${await again.inputValue()}"`);
      await tabDirty(page, true);

      // Escape, then Discard (Tab from Keep Editing, Enter): the form closes and the memory is unchanged.
      await again.press('Escape');
      await confirm.waitFor({ state: 'visible', timeout: 10_000 });
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await formTab(page).waitFor({ state: 'detached', timeout: 15_000 });
      const still = await showMemory(pane, { category: m.category, sourceType: m.source_type, text: KEEP });
      const info = await rowInfo(still);
      if (info.label !== shortText(KEEP)) throw new Error(`the row reads "${info.label}"`);
      if (
        await page.locator('.notifications-toasts .notification-toast', { hasText: 'were not saved' }).count()
      )
        throw new Error('Discard still offered the changes back');
      await screenshot('discarded');
    },
  },
];
