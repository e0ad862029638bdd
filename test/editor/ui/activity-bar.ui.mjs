// UI: the extension's activity-bar view container opens and shows its views.
// Driven by the installed extension's manifest (contributes.viewsContainers /
// contributes.views), so it checks whatever the VSIX actually contributes.

/** The activity-bar container under test: the one titled like the extension (Mnemo), else the first. */
function pickContainer(manifest, extensionId) {
  const containers = manifest.contributes?.viewsContainers?.activitybar ?? [];
  const byName = containers.find((c) => c.title.toLowerCase().includes(manifest.name.toLowerCase()));
  const picked = byName ?? containers[0];
  if (!picked) throw new Error(`${extensionId} contributes no activity-bar view container`);
  return picked;
}

export const tests = [
  {
    name: 'activity-bar view container opens',
    async run({ page, wb, manifest, extensionId, screenshot, log }) {
      const container = pickContainer(manifest, extensionId);
      const views = (manifest.contributes?.views?.[container.id] ?? []).filter((v) => !v.when);
      log(`container ${container.id} "${container.title}", views: ${views.map((v) => v.name).join(', ')}`);
      await wb.openViewContainer(container.title);
      for (const v of views) {
        await wb.viewPane(v.name).waitFor({ state: 'visible', timeout: 20_000 });
      }
      // Until the extension activates and registers its providers, tree views show this text.
      await page
        .locator('.part.sidebar', { hasText: 'There is no data provider registered' })
        .waitFor({ state: 'detached', timeout: 30_000 })
        .catch(() => {
          throw new Error(
            `a view of ${container.id} still has no data provider after 30s (did ${extensionId} activate?)`,
          );
        });
      await screenshot('opened');
    },
  },
];
