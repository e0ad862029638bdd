// UI (issue 38 item 1): keys act on the row the focus outline is on, as in the Explorer, never on a
// selection the arrow keys left behind. Keyboard only: F1 "Focus on … View", the arrow keys, Enter, F2,
// Delete, Ctrl+Enter, Shift+Delete. The memories are Meeting notes of the workspace's project (no other
// test seeds that source), so deleting or confirming them touches nothing another test reads.
import { pollUntil } from '../lib/processes.mjs';
import {
  CATEGORY_LABEL,
  SOURCE_LABEL,
  arrowTo,
  detailsTitle,
  focusView,
  focusedRow,
  openMemories,
  shortText,
  statusText,
  visibleRows,
  walkTo,
  webviewFrame,
} from './support/mnemo.mjs';

const FIRST = 'We decided that release notes are written in the pull request description.';
const SECOND = 'We decided that the api gateway keeps its access logs for 30 days.';
const THIRD = 'We decided that the mobile app ships every second Thursday.';
const PENDING = [
  'Remember that the on-call rotation changes every Monday at 09:00.',
  'Remember that the VPN certificate of the office expires in March 2027.',
  'Remember that the design review of the mobile app happens on Wednesdays.',
];

export const seed = [
  {
    sourceType: 'meeting_notes',
    messages: [FIRST, SECOND, THIRD].map((content) => ({ role: 'user', content })),
  },
  { sourceType: 'meeting_notes', messages: PENDING.map((content) => ({ role: 'user', content })) },
];

/** The memory the pipeline kept for a seeded line (an explicit request loses its "Remember that"). */
function kept(s, line) {
  const words = line.replace(/^Remember that /, '').replace(/\.$/, '');
  const m = s.memories.find((x) => x.text.includes(words));
  if (!m) throw new Error(`"${line}" was not kept: ${s.memories.map((x) => x.text).join(' | ')}`);
  return m;
}

/** Waits for the details of a memory to open (Enter shows them; what opens later would take the focus). */
async function detailsShown(page, m) {
  await page
    .locator('.part.editor .tab.active', { hasText: detailsTitle(m) })
    .first()
    .waitFor({ state: 'visible', timeout: 20_000 });
}

/** The Review Queue pane, expanded (the Memories helpers collapse it). */
async function reviewPane(ctx) {
  await openMemories(ctx, { collapse: false });
  const pane = ctx.wb.viewPane('Review Queue');
  const header = pane.locator('.pane-header').first();
  if ((await header.getAttribute('aria-expanded')) !== 'true')
    await header.click({ position: { x: 60, y: 10 } });
  await pane.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 30_000 });
  return pane;
}

export const tests = [
  {
    name: 'Enter selects a memory; after ↓↓, F2 and Delete act on the outlined memory, not the selected one',
    timeoutMs: 180_000,
    async run(ctx) {
      const { page, wb, seed: s, screenshot } = ctx;
      const [a, , c] = [FIRST, SECOND, THIRD].map((t) => kept(s, t));
      if (a.category !== c.category) throw new Error('the seeded decisions landed in two categories');
      const pane = await openMemories(ctx);
      const path = ['workspace', CATEGORY_LABEL[a.category], SOURCE_LABEL.meeting_notes];
      await focusView(wb, 'Memories');
      await walkTo(page, pane, [...path, shortText(a.text)], { log: ctx.log });
      await page.keyboard.press('Enter');
      await pollUntil(async () => (await focusedRow(pane))?.selected || undefined, {
        timeoutMs: 10_000,
        what: 'Enter to select the outlined memory',
      });
      await detailsShown(page, a);
      await focusView(wb, 'Memories');
      const outlined = await arrowTo(page, pane, shortText(c.text));
      if (outlined.selected) throw new Error('the outlined memory is selected too: the walk proves nothing');
      await screenshot('outline-on-third-selection-on-first');

      await page.keyboard.press('F2');
      const text = page
        .frameLocator('iframe.webview.ready')
        .last()
        .frameLocator('iframe#active-frame')
        .locator('textarea#text');
      await text.waitFor({ state: 'visible', timeout: 30_000 });
      const editing = await text.inputValue();
      if (editing !== c.text) throw new Error(`F2 opened the form on "${editing}", not the outlined memory`);
      await screenshot('f2-on-outlined');
      await page.keyboard.press('Escape');
      await page
        .locator('.part.editor .tab', { hasText: 'Edit:' })
        .first()
        .waitFor({ state: 'detached', timeout: 15_000 });

      await focusView(wb, 'Memories');
      await arrowTo(page, pane, shortText(c.text));
      await page.keyboard.press('Delete');
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: 20_000 });
      const said = ((await dialog.textContent()) ?? '').replace(/\s+/g, ' ');
      if (!said.includes(`Delete “${shortText(c.text, 80)}” for good?`))
        throw new Error(`Delete asks about another memory: ${said}`);
      await screenshot('delete-asks-about-outlined');
      // Enter takes the default button: it must delete (what was asked), not mark anything wrong.
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached', timeout: 10_000 });
      await pollUntil(
        async () =>
          !(await pane.locator('.monaco-list-row', { hasText: shortText(c.text) }).count()) || undefined,
        { timeoutMs: 20_000, what: `the outlined memory to be deleted (rows: ${await visibleRows(pane)})` },
      );
      if (!(await pane.locator('.monaco-list-row', { hasText: shortText(a.text) }).count()))
        throw new Error('the selected (not outlined) memory went too');
      await pollUntil(async () => /Deleted 1 memory/.test(await statusText(page)) || undefined, {
        timeoutMs: 10_000,
        what: 'the status bar to say "Deleted 1 memory"',
      });
      await screenshot('outlined-deleted');
      await wb.runCommand('View: Close All Editors').catch(() => {});
    },
  },
  {
    name: 'F2 and Delete on a row that is not a memory say so instead of acting on the selection',
    async run(ctx) {
      const { page, wb, seed: s, screenshot } = ctx;
      const a = kept(s, FIRST);
      const pane = await openMemories(ctx);
      await focusView(wb, 'Memories');
      await walkTo(page, pane, [
        'workspace',
        CATEGORY_LABEL[a.category],
        SOURCE_LABEL.meeting_notes,
        shortText(a.text),
      ]);
      await page.keyboard.press('Enter'); // a memory is selected…
      await detailsShown(page, a);
      await focusView(wb, 'Memories');
      await arrowTo(page, pane, SOURCE_LABEL.meeting_notes); // …and the outline is on its source row
      await page.keyboard.press('F2');
      await pollUntil(async () => /Edit Memory acts on a memory/.test(await statusText(page)) || undefined, {
        timeoutMs: 10_000,
        what: 'the status bar to say F2 needs a memory row',
      });
      if (await page.locator('.part.editor .tab', { hasText: 'Edit:' }).count())
        throw new Error('F2 on a source row opened the edit form on the selected memory');
      await screenshot('f2-on-source-row');
      await wb.runCommand('View: Close All Editors').catch(() => {});
    },
  },
  {
    name: 'Review Queue: Ctrl+Enter confirms the outlined memory, Shift+Delete rejects it',
    timeoutMs: 150_000,
    async run(ctx) {
      const { page, wb, seed: s, screenshot } = ctx;
      const [p1, p2, p3] = PENDING.map((t) => kept(s, t));
      for (const m of [p1, p2, p3]) if (m.status !== 'pending') throw new Error(`"${m.text}" is ${m.status}`);
      const pane = await reviewPane(ctx);
      await focusView(wb, 'Review Queue');
      await arrowTo(page, pane, shortText(p1.text));
      await page.keyboard.press('Enter'); // selects p1 and shows its details
      await detailsShown(page, p1);
      await focusView(wb, 'Review Queue');
      await arrowTo(page, pane, shortText(p2.text));
      await screenshot('queue-outline-on-second');
      await page.keyboard.press('Control+Enter');
      const row = (m) => pane.locator('.monaco-list-row', { hasText: shortText(m.text) });
      await pollUntil(async () => !(await row(p2).count()) || undefined, {
        timeoutMs: 20_000,
        what: `Ctrl+Enter to confirm the outlined memory (rows: ${await visibleRows(pane)})`,
      });
      // The queue pane is short and its list virtualised: p1's row may be scrolled out whatever its state.
      // What was confirmed is said by the status bar ("Confirmed 2 memories" had it taken the selection too),
      // and p1's details, still open, keep saying "pending review".
      const confirmed = `Confirmed “${shortText(p2.text, 60)}”`;
      await pollUntil(async () => (await statusText(page)).includes(confirmed) || undefined, {
        timeoutMs: 10_000,
        what: `the status bar to say ${confirmed} (it says ${await statusText(page)})`,
      });
      const meta = webviewFrame(page).locator('p.meta').first();
      if (!/^pending review/.test((await meta.textContent()) ?? ''))
        throw new Error(`Ctrl+Enter confirmed the selected memory as well: ${await meta.textContent()}`);

      await focusView(wb, 'Review Queue');
      await arrowTo(page, pane, shortText(p3.text));
      await page.keyboard.press('Shift+Delete');
      await pollUntil(async () => !(await row(p3).count()) || undefined, {
        timeoutMs: 20_000,
        what: `Shift+Delete to reject the outlined memory (rows: ${await visibleRows(pane)})`,
      });
      await page
        .locator('.notifications-toasts', { hasText: `Marked “${shortText(p3.text, 60)}” as wrong` })
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 });
      if (!/^pending review/.test((await meta.textContent()) ?? ''))
        throw new Error(`Shift+Delete rejected the selected memory as well: ${await meta.textContent()}`);
      await screenshot('queue-after-confirm-and-reject');
      await wb.dismiss();
      await wb.runCommand('View: Close All Editors').catch(() => {});
    },
  },
];
