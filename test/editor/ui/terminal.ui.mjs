// UI: terminal capture end to end. In VS Code's integrated terminal (bash with
// VS Code's shell integration, which code-server injects), a failing command and
// then its fix are typed; after mnemo.capture.terminal.idleGapSeconds (5 s in
// user-settings.ui.json) the session is sent, the sidecar learns from it, and a
// Troubleshooting memory appears in the Memories tree.
// The commands run test/fixtures/workspace/scripts/flash.sh. A session that keeps nothing says so
// quietly in the status bar ("nothing kept — why?", issue 38 item 5); a click explains it line by line.
import { pollUntil } from '../lib/processes.mjs';
import {
  CATEGORY_LABEL,
  clearHover,
  openMemories,
  rowInfo,
  SOURCE_LABEL,
  statusItem,
  treeRow,
  expandRow,
  projectRow,
  visibleRows,
} from './support/mnemo.mjs';

const FAILING = 'bash scripts/flash.sh --port 5020';
const FIXED = 'bash scripts/flash.sh --port 502';

/** Text of the terminal's rendered rows (DOM renderer: terminal.integrated.gpuAcceleration off). */
async function screenText(term) {
  return term
    .locator('.xterm-rows')
    .evaluate((el) => [...el.children].map((r) => r.textContent ?? '').join('\n'))
    .catch(() => '');
}

/**
 * A new terminal with its bash prompt up (shell integration running); returns the terminal, its panel's
 * command decorations and a way to type a command.
 */
async function newTerminal({ page, wb, log }) {
  // A row tooltip left by the pointer (an earlier test clicked a memory) must not sit over the palette.
  await clearHover(page);
  await wb.runCommand('Terminal: Create New Terminal');
  const panel = page.locator('.part.panel');
  const term = panel.locator('.terminal-wrapper.active .xterm, .terminal-wrapper .xterm').last();
  await term.waitFor({ state: 'visible', timeout: 30_000 });
  log('terminal shown');
  // The prompt is up (bash started and ran VS Code's shell integration script).
  await pollUntil(async () => /[$#]\s*$/m.test(await screenText(term)), {
    timeoutMs: 30_000,
    what: 'a bash prompt in the terminal',
  }).catch(async (e) => {
    throw new Error(
      `${e.message}; the terminal shows: ${JSON.stringify((await screenText(term)).trim().slice(-300))}`,
    );
  });
  log('prompt shown');
  const decorations = (kind) =>
    panel.locator(`.terminal-command-decoration.codicon-terminal-decoration-${kind}`);
  const typeCommand = async (command) => {
    // Top left: notification toasts (bottom right) may cover the terminal's middle.
    await term.locator('.xterm-screen').click({ position: { x: 30, y: 8 } });
    await page.keyboard.type(command, { delay: 10 });
    await page.keyboard.press('Enter');
  };
  return { term, decorations, typeCommand };
}

export const tests = [
  {
    name: 'a failing command and its fix in the terminal become a troubleshooting memory',
    timeoutMs: 150_000,
    async run(ctx) {
      const { page, screenshot, log } = ctx;
      await openMemories(ctx);
      log('sidecar running');
      const { term, decorations, typeCommand } = await newTerminal(ctx);
      await typeCommand(FAILING);
      // A gutter decoration with the exit status exists only with shell integration.
      await decorations('error')
        .first()
        .waitFor({ state: 'attached', timeout: 20_000 })
        .catch(async () => {
          const hint = await page
            .locator('.notifications-toasts', { hasText: 'shell integration is not active' })
            .count();
          throw new Error(
            `no error decoration after "${FAILING}": shell integration is not active${hint ? ' (Mnemo says so too)' : ''}; the terminal shows: ${JSON.stringify((await screenText(term)).trim().slice(-400))}`,
          );
        });
      log('failing command done');
      await typeCommand(FIXED);
      await decorations('success').first().waitFor({ state: 'attached', timeout: 20_000 });
      const text = await screenText(term);
      if (
        !/refused the connection on port 5020/.test(text) ||
        !/flashed over Modbus-TCP on port 502/.test(text)
      ) {
        throw new Error(
          `the commands did not run as expected; the terminal shows: ${JSON.stringify(text.trim().slice(-600))}`,
        );
      }
      await screenshot('terminal');
      const sentAt = Date.now();
      log('fixed command done');

      // After the idle gap the session is captured; the tree refreshes the project by itself.
      const pane = await openMemories(ctx);
      await expandRow(projectRow(pane), 'project workspace');
      const source = SOURCE_LABEL.troubleshooting_log;
      let row;
      await pollUntil(
        async () => {
          for (const category of Object.values(CATEGORY_LABEL)) {
            const c = treeRow(pane, 2, category).first();
            if (await c.count()) await expandRow(c, `category ${category}`);
          }
          const sources = treeRow(pane, 3, source);
          if (!(await sources.count())) return false;
          await expandRow(sources.first(), `source ${source}`);
          // The failing command and its fix become one troubleshooting memory:
          // "`bash scripts/flash.sh --port 5020` failed (exit 1: …); `… --port 502` fixed it."
          const memories = pane
            .locator('.monaco-list-row[aria-level="4"]')
            .filter({ has: page.locator('.label-name', { hasText: /flash\.sh --port 5020` failed/ }) });
          await memories.first().waitFor({ state: 'visible', timeout: 2000 });
          row = memories.first();
          return true;
        },
        {
          timeoutMs: 90_000,
          intervalMs: 1000,
          what: `a "${source}" memory from the terminal session in the Memories tree`,
        },
      ).catch(async (e) => {
        throw new Error(`${e.message}\ntree rows: ${(await visibleRows(pane)).join(' | ')}`);
      });
      const info = await rowInfo(row);
      log(`captured after ${Math.round((Date.now() - sentAt) / 1000)}s: ${info.label} (${info.description})`);
      // The tooltip / screen-reader label says where it came from.
      if (!/memory:/.test(info.ariaLabel)) throw new Error(`unexpected row: ${info.ariaLabel}`);
      await row.click();
      await screenshot('troubleshooting-memory');
    },
  },
  {
    name: 'a terminal session that keeps nothing says so in the status bar; a click says why, line by line',
    timeoutMs: 120_000,
    async run(ctx) {
      const { page, screenshot, log } = ctx;
      await openMemories(ctx);
      const { term, decorations, typeCommand } = await newTerminal(ctx);
      const before = await decorations('success').count();
      // A command that works at once teaches nothing (echo, ls … are not even captured: excluded by default).
      await typeCommand(FIXED);
      await pollUntil(async () => (await decorations('success').count()) > before, {
        timeoutMs: 20_000,
        what: 'the command to finish',
      });
      // After the idle gap (5 s) the session is sent and processed: the status bar asks, quietly.
      const item = statusItem(page);
      await pollUntil(
        async () => /nothing kept — why\?/.test((await item.textContent()) ?? '') || undefined,
        {
          timeoutMs: 60_000,
          intervalMs: 250,
          what: 'the status bar to say the terminal session kept nothing',
        },
      ).catch(async (e) => {
        throw new Error(
          `${e.message}; the status bar says: ${await item.textContent()}; the terminal shows: ${JSON.stringify((await screenText(term)).trim().slice(-200))}`,
        );
      });
      await screenshot('nothing-kept-status');
      await item.click();
      await page
        .locator('.part.editor .tab', { hasText: /nothing-kept/ })
        .first()
        .waitFor({ state: 'visible', timeout: 20_000 });
      const preview = page.frameLocator('iframe.webview.ready').last().frameLocator('iframe#active-frame');
      const heading = preview.locator('h1', { hasText: 'Nothing was kept from a terminal session' });
      await heading.waitFor({ state: 'visible', timeout: 20_000 });
      const body = (await preview.locator('body').textContent()) ?? '';
      if (!/flash\.sh --port 502: the command worked and taught nothing new/.test(body))
        throw new Error(`the explanation does not give the command's reason in words: ${body.slice(0, 600)}`);
      log('explained');
      await screenshot('nothing-kept-why');
    },
  },
];
