// UI: every command the extension contributes (that has no `when` clause
// hiding it from the palette) is offered by the command palette (F1).

export const tests = [
  {
    name: 'command palette lists the contributed commands',
    async run({ wb, manifest, log }) {
      const hidden = new Set(
        (manifest.contributes?.menus?.commandPalette ?? []).filter((m) => m.when).map((m) => m.command),
      );
      const commands = (manifest.contributes?.commands ?? []).filter(
        (c) => !hidden.has(c.command) && !c.enablement,
      );
      if (commands.length === 0) {
        log('no commands contributed: nothing to look for');
        return;
      }
      const missing = [];
      for (const c of commands) {
        const full = c.category ? `${c.category}: ${c.title}` : c.title;
        const labels = await wb.paletteEntries(full);
        if (!labels.some((l) => l.includes(full)))
          missing.push(`${full} (${c.command}); palette showed: ${labels.slice(0, 5).join(' | ')}`);
      }
      await wb.dismiss();
      if (missing.length) throw new Error(`not in the command palette:\n${missing.join('\n')}`);
    },
  },
];

tests.push({
  name: 'F1 runs "Show Output" and the extension output channel opens',
  async run({ page, wb, manifest, extensionId, log, screenshot }) {
    const cmd = (manifest.contributes?.commands ?? []).find(
      (c) => c.command === `${manifest.name}.showOutput`,
    );
    if (!cmd) {
      log(`${extensionId} contributes no ${manifest.name}.showOutput command: nothing to run`);
      return;
    }
    await wb.runCommand(cmd.category ? `${cmd.category}: ${cmd.title}` : cmd.title);
    const panel = page.locator('.part.panel');
    await panel.waitFor({ state: 'visible', timeout: 20_000 });
    // The output view's channel picker names the channel that is shown.
    const channel = manifest.displayName?.split(/\s+[—-]\s+/)[0] ?? manifest.name;
    await panel
      .locator('.monaco-select-box, select', { hasText: new RegExp(channel.split(/\s/)[0], 'i') })
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    await screenshot('output');
  },
});
