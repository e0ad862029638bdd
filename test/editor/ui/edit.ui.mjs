// UI: "Edit Memory" (the inline action of a tree item) opens the edit form with the memory's current
// values — its category already chosen — and fixing a typo in the text then pressing Ctrl+Enter saves
// the text alone: the memory stays in its category, and the status bar (not a notification) says
// "…: text". Issue 19 item 1: Enter through the old five steps moved memories to Persona.
import { pollUntil } from '../lib/processes.mjs';
import { openMemories, rowInfo, seeded, shortText, showMemory, statusItem } from './support/mnemo.mjs';

const TYPO = 'Always run the smoke tets before tagging a release of the billing service.';
const FIXED = 'Always run the smoke tests before tagging a release of the billing service.';

export const seed = [
  {
    sourceType: 'manual',
    messages: [
      { role: 'user', content: TYPO },
      { role: 'user', content: 'We decided to keep billing invoices for 10 years.' },
    ],
  },
];

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
];
