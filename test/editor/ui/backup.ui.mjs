// UI: backup and restore (issue 19 items 7-8, issue 38 item 7). The first Back Up Memories asks once for a
// folder outside VS Code's profile and remembers it, then the password twice (none is saved in a fresh
// profile); the result names the full path with Copy Path first (a browser window has no OS file manager
// to Reveal in); saving the password offers daily or weekly backups and says when the next one runs.
// Restore From Backup asks the password again after a wrong one, then previews in a modal dialog where the
// records go (per project, with conflicts) before anything is written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pollUntil } from '../lib/processes.mjs';
import { waitSidecarRunning } from './support/mnemo.mjs';

const PASSWORD = 'ui backup password';

export const seed = [
  {
    sourceType: 'manual',
    // Two substantive lines: the pipeline skips shorter sessions (and seeding then fails loudly).
    messages: [
      { role: 'user', content: 'We decided to keep billing invoices for 10 years.' },
      { role: 'user', content: 'Remember that the nightly export job runs at 02:00 UTC.' },
    ],
  },
];

let backupFile;
/** The folder chosen at the first backup (outside the profile; code-server runs on this machine). */
let backupDir;

/**
 * Runs Back Up Memories through its prompts (the password twice: none is saved in a fresh profile) and
 * returns the result toast and the full path it names. The restore test calls it too when it runs alone.
 */
async function backUp(page, wb) {
  await waitSidecarRunning(page);
  await wb.runCommand('Mnemo: Back Up Memories');
  // First backup: where should backups go? code-server's folder dialog is a quick input taking a path;
  // its own button (the command's openLabel) accepts the typed folder.
  backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-ui-backups-'));
  const widget = page.locator('.quick-input-widget').first();
  await pollUntil(
    async () => /where should backups go/i.test((await widget.textContent()) ?? '') || undefined,
    {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: 'the folder dialog of the first backup',
    },
  );
  await wb.waitQuickInputFocused(20_000);
  const input = widget.locator('input.input').first();
  await input.fill(`${backupDir}/`);
  await pollUntil(async () => (await input.inputValue()) === `${backupDir}/` || undefined, {
    timeoutMs: 10_000,
    intervalMs: 100,
    what: 'the folder dialog to hold the chosen folder',
  });
  // The dialog ignores its button while it is still listing the folder just typed (busy): click until it
  // takes it, as a person would, and the password prompt replaces it.
  const keep = widget.locator('.monaco-button', { hasText: /^Keep Backups Here$/ }).first();
  let clickedAt = 0;
  await pollUntil(
    async () => {
      const text = (await widget.textContent()) ?? '';
      if (/Backup password/.test(text)) return true;
      if (/where should backups go/i.test(text) && Date.now() - clickedAt > 2_000) {
        clickedAt = Date.now();
        await keep.click({ timeout: 2_000 }).catch(() => {});
      }
      return undefined;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: 'the password prompt after choosing the folder' },
  );
  await typeAndEnter(page, wb, PASSWORD);
  await pollUntil(
    async () =>
      /again/i.test((await page.locator('.quick-input-widget').first().textContent()) ?? '') || undefined,
    { timeoutMs: 10_000, intervalMs: 100, what: 'the second password prompt' },
  );
  await typeAndEnter(page, wb, PASSWORD);
  const toast = await wb.waitForNotification(/backed up \d+ memories to \//, 60_000);
  const text = (await toast.textContent()) ?? '';
  const m = /to (\/\S+mnemo-backup-all-\d{8}T\d{6}Z\.zip)/.exec(text);
  if (!m) throw new Error(`the result does not name the full path: ${text}`);
  if (path.dirname(m[1]) !== backupDir)
    throw new Error(`the backup went to ${path.dirname(m[1])}, not the chosen folder ${backupDir}`);
  backupFile = m[1];
  return { toast, file: m[1] };
}

/** Types into the quick input once it has the focus, then presses Enter. */
async function typeAndEnter(page, wb, text) {
  await wb.waitQuickInputFocused(20_000);
  const input = page.locator('.quick-input-widget input.input').first();
  await input.fill(text);
  await page.keyboard.press('Enter');
}

export const tests = [
  {
    name: 'backup: a folder outside the profile asked once, the password twice, the full path with Copy Path; saving the password offers a schedule',
    async run({ page, wb, screenshot }) {
      const { toast } = await backUp(page, wb);
      const buttons = await toast.locator('.monaco-button').allTextContents();
      // A browser window: Reveal would open no file manager, so Copy Path is the first action.
      if (buttons[0] !== 'Copy Path' || buttons.includes('Reveal'))
        throw new Error(`the result's buttons are ${buttons.join(' | ')}`);
      await screenshot('backup-result');
      await toast.locator('.monaco-button', { hasText: 'Save Password for Scheduled Backups' }).click();
      const offer = await wb.waitForNotification(/Back up on a schedule\?/, 20_000);
      await screenshot('backup-schedule-offer');
      await offer.locator('.monaco-button', { hasText: /^Daily$/ }).click();
      const on = await wb.waitForNotification(/daily backups into .* are on/, 20_000);
      const said = (await on.textContent()) ?? '';
      if (!said.includes(backupDir) || !/the next one runs about \d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(said))
        throw new Error(`the schedule should name the folder and the next run: ${said}`);
      await screenshot('backup-schedule-on');
      await wb.dismiss();
    },
  },
  {
    name: 'restore: a wrong password asks again; the preview is a modal listing where records go',
    async run({ page, wb, screenshot }) {
      // Its own backup when run alone (--grep restore); else the one the backup test just wrote.
      const file = backupFile ?? (await backUp(page, wb)).file;
      await wb.dismiss();
      await wb.runCommand('Mnemo: Restore From Backup');
      // code-server's file dialog is a quick input that takes a path. It opens in the backup folder; Enter
      // would open the active list row (a folder) rather than the typed path, so the dialog's own button
      // (the command's openLabel, Restore) accepts the path once the dialog shows it.
      const widget = page.locator('.quick-input-widget').first();
      const name = file.slice(file.lastIndexOf('/') + 1);
      await widget.locator('.monaco-list-row', { hasText: name }).first().waitFor({ timeout: 20_000 });
      await wb.waitQuickInputFocused(20_000);
      const input = widget.locator('input.input').first();
      await input.fill(file);
      await pollUntil(async () => (await input.inputValue()) === file || undefined, {
        timeoutMs: 10_000,
        intervalMs: 100,
        what: 'the file dialog to hold the backup path',
      });
      await widget
        .locator('.monaco-button', { hasText: /^Restore$/ })
        .first()
        .click();
      await pollUntil(async () => /Backup password/.test((await widget.textContent()) ?? '') || undefined, {
        timeoutMs: 20_000,
        intervalMs: 100,
        what: 'the password prompt after choosing the file',
      });
      await typeAndEnter(page, wb, 'not the password at all');
      await pollUntil(
        async () =>
          /password is wrong/i.test(
            (await page.locator('.quick-input-widget').first().textContent()) ?? '',
          ) || undefined,
        { timeoutMs: 30_000, intervalMs: 100, what: 'the password prompt again, saying it was wrong' },
      );
      await screenshot('restore-wrong-password');
      await typeAndEnter(page, wb, PASSWORD);
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: 30_000 });
      const detail = (await dialog.textContent()) ?? '';
      if (!/→ .+: \d+ new, \d+ already stored \(\d+ differ\)/.test(detail))
        throw new Error(`the preview does not list the target projects with counts: ${detail}`);
      if (
        /\d{2}:\d{2}:\d{2}\.\d{3}Z/.test(detail) ||
        !/made \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC by/.test(detail)
      )
        throw new Error(`the preview should say when the backup was made to the minute, in UTC: ${detail}`);
      // What Enter would press: never a button that writes into other projects or overwrites.
      const focused = await pollUntil(
        async () =>
          (await dialog.evaluate((el) => {
            const b = document.activeElement;
            return b && el.contains(b) && b.classList.contains('monaco-button') ? (b.textContent ?? '') : '';
          })) || undefined,
        { timeoutMs: 10_000, intervalMs: 100, what: 'a focused button in the restore preview' },
      );
      if (/Other Projects|Into Those Projects|Overwrite/.test(focused))
        throw new Error(`the preview's focused button gives consent: "${focused}"`);
      await screenshot('restore-preview');
      // Restore; with other projects' memories in the file (when the whole UI phase seeded some) the button
      // that restores is "Restore Including Other Projects", and it is not the focused one.
      await dialog
        .locator('.dialog-buttons .monaco-button', { hasText: /^Restore( Including Other Projects)?$/ })
        .first()
        .click();
      await pollUntil(
        async () =>
          /Restored \d+ new/.test((await page.locator('.part.statusbar').textContent()) ?? '') || undefined,
        { timeoutMs: 30_000, intervalMs: 200, what: 'the status bar to say what was restored' },
      );
    },
  },
];
