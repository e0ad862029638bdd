// UI: what the editor's own agent is offered, as a person sees it in today's VS Code: "MCP: List
// Servers" lists Mnemo's server (VS Code 1.101+), and "Chat: Configure Instructions" / "Configure
// Skills" list the instructions and the skill Mnemo contributes (stable in current VS Code). On an
// older VS Code without them the tests say so and pass: there is nothing of Mnemo's to show there.

/** Whether the workbench is VS Code `want` ("1.101") or newer. */
function atLeast(version, want) {
  const [a, b] = String(version).split('.').map(Number);
  const [x, y] = want.split('.').map(Number);
  return a > x || (a === x && b >= y);
}

/** The rows of the open quick input (aria-label, else text). */
async function quickPickRows(page) {
  return page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row')
    .evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim()));
}

/** Waits (bounded) until a quick pick row matching `re` shows; returns the rows. */
async function waitForRow(page, re, what, timeoutMs = 30_000) {
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: re }).first();
  try {
    await row.waitFor({ state: 'visible', timeout: timeoutMs });
  } catch {
    throw new Error(
      `${what}: no row matching ${re}; rows: ${(await quickPickRows(page)).join(' | ') || 'none'}`,
    );
  }
  return quickPickRows(page);
}

export const tests = [
  {
    name: '"MCP: List Servers" lists Mnemo memory',
    timeoutMs: 120_000,
    async run({ page, wb, vscodeVersion, log, screenshot }) {
      if (!atLeast(vscodeVersion, '1.101')) {
        log(`VS Code ${vscodeVersion} has no MCP server definitions: nothing to list`);
        return;
      }
      await wb.runCommand('MCP: List Servers');
      await waitForRow(page, /Mnemo memory/, 'MCP: List Servers');
      await screenshot('mcp-list-servers');
      await wb.dismiss();
    },
  },
  {
    name: 'Chat: Configure Instructions and Configure Skills list what Mnemo contributes',
    timeoutMs: 120_000,
    async run({ page, wb, vscodeVersion, log, screenshot }) {
      if (!atLeast(vscodeVersion, '1.110')) {
        log(`VS Code ${vscodeVersion} has no contributed chat instructions or skills: nothing to list`);
        return;
      }
      await wb.runCommand('Chat: Configure Instructions', { expect: 'Configure Instructions' });
      await waitForRow(page, /mnemo/i, 'Chat: Configure Instructions');
      await screenshot('chat-instructions');
      await wb.dismiss();
      await wb.runCommand('Chat: Configure Skills', { expect: 'Configure Skills' });
      await waitForRow(page, /mnemo-memory/i, 'Chat: Configure Skills');
      await screenshot('chat-skills');
      await wb.dismiss();
    },
  },
];
