// Mnemo-specific helpers for the UI tests: the Mnemo view, its Memories tree
// (project > category > source > memory, see src/views/memoryTree.ts) and the
// sidecar's readiness as the status bar shows it (src/views/statusBar.ts).
// Every wait is bounded and polls a condition.
import { pollUntil } from '../../lib/processes.mjs';

export const CATEGORY_LABEL = { persona: 'Persona', episodic: 'Episodic', instruction: 'Instruction' };
export const SOURCE_LABEL = {
  chat: 'Chat',
  terminal: 'Terminal',
  manual: 'Manual',
  import: 'Imported',
  meeting_notes: 'Meeting notes',
  code_comment: 'Code comments',
  troubleshooting_log: 'Troubleshooting',
};

/** The label a memory gets in the tree (present.ts shortText(text, 70)). */
export function shortText(text, max = 70) {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The seeded memory whose text is `text` (ctx.seed from lib/seed.mjs). */
export function seeded(seed, text) {
  const m = seed.memories.find((x) => x.text === text);
  if (!m) {
    throw new Error(
      `"${text}" was not seeded (the pipeline kept: ${seed.memories.map((x) => JSON.stringify(x.text)).join(', ') || 'nothing'}; see ui/seed/)`,
    );
  }
  return m;
}

/** The status bar item of Mnemo (its accessibility label starts with "Mnemo:"). */
export function statusItem(page) {
  return page.locator('.part.statusbar [aria-label^="Mnemo:"]').first();
}

/**
 * Waits until the sidecar runs and reports its memory count (status bar "Mnemo 12": the
 * accessibility label then says "… 12 memories."). Returns the label.
 */
export async function waitSidecarRunning(page, timeoutMs = 60_000) {
  const item = statusItem(page);
  return pollUntil(
    async () => {
      const label = (await item.getAttribute('aria-label', { timeout: 1000 }).catch(() => null)) ?? '';
      return /\b\d+ memor(?:y|ies)\./.test(label) && !/not running|starting/.test(label) ? label : undefined;
    },
    { timeoutMs, intervalMs: 250, what: 'the Mnemo sidecar to run (status bar "Mnemo: … N memories.")' },
  ).catch(async (e) => {
    const label = await item.getAttribute('aria-label', { timeout: 1000 }).catch(() => null);
    throw new Error(`${e.message}; status bar says: ${label ?? 'no Mnemo item'}`);
  });
}

/**
 * Opens the Mnemo view container, makes sure the Memories pane is expanded (and the Review
 * Queue collapsed, so the tree has room and its rows are rendered), waits for the sidecar, and
 * collapses the tree so callers expand exactly the path they need. Returns the Memories pane.
 */
export async function openMemories({ page, wb }, { collapse = true } = {}) {
  await wb.openViewContainer('Mnemo');
  const pane = wb.viewPane('Memories');
  await pane.waitFor({ state: 'visible', timeout: 20_000 });
  // The other views of the container are collapsed: the tree gets the height (its rows are virtualized:
  // a row below the fold is not in the page at all).
  for (const other of ['Review Queue', 'Agent Sessions', 'What My Agents Saw'])
    await setPaneExpanded(wb.viewPane(other), false);
  await setPaneExpanded(pane, true);
  // Room for the descriptions ("95% · 2 minutes ago · wrong") in screenshots.
  await wb.widenSidebar(520).catch(() => {});
  await waitSidecarRunning(page);
  await page
    .locator('.part.sidebar', { hasText: 'There is no data provider registered' })
    .waitFor({ state: 'detached', timeout: 30_000 });
  if (collapse) await collapseAll(pane);
  return pane;
}

async function setPaneExpanded(pane, expanded) {
  const header = pane.locator('.pane-header').first();
  if (!(await header.count())) return;
  const now = (await header.getAttribute('aria-expanded')) === 'true';
  if (now !== expanded) {
    await header.click({ position: { x: 60, y: 10 } });
    await pollUntil(async () => ((await header.getAttribute('aria-expanded')) === 'true') === expanded, {
      timeoutMs: 10_000,
      what: `pane ${expanded ? 'expanded' : 'collapsed'}`,
    });
  }
}

/** The view's "Collapse All" title action (workbench.view.alwaysShowHeaderActions keeps it visible). */
export async function collapseAll(pane) {
  const action = pane.locator('.pane-header .actions .action-label[aria-label="Collapse All"]');
  // Disabled: no row can be collapsed (the workspace has no memories yet, e.g. a module run alone).
  if ((await action.count()) && (await action.first().getAttribute('aria-disabled')) !== 'true') {
    await action.first().click();
    // Only level-1 rows (the projects) are left.
    await pollUntil(async () => (await pane.locator('.monaco-list-row[aria-level="2"]').count()) === 0, {
      timeoutMs: 10_000,
      what: 'the Memories tree to collapse',
    });
  }
}

/** Tree rows of a pane at a level (1 project, 2 category, 3 source, 4 memory) whose label is `label`. */
export function treeRow(pane, level, label) {
  const name = typeof label === 'string' ? new RegExp(`^\\s*${escapeRe(label)}\\s*$`) : label;
  return pane
    .locator(`.monaco-list-row[aria-level="${level}"]`)
    .filter({ has: pane.page().locator('.label-name', { hasText: name }) });
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Expands a collapsible row (click toggles it) and waits until it is expanded. */
export async function expandRow(row, what) {
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  if ((await row.getAttribute('aria-expanded')) === 'true') return;
  await row.click();
  await pollUntil(async () => (await row.getAttribute('aria-expanded')) === 'true', {
    timeoutMs: 10_000,
    what: `${what} to expand`,
  });
}

export async function collapseRow(row) {
  if ((await row.getAttribute('aria-expanded')) !== 'true') return;
  await row.click();
  await pollUntil(async () => (await row.getAttribute('aria-expanded')) === 'false', {
    timeoutMs: 10_000,
    what: 'row to collapse',
  });
}

/** The workspace folder's project row ("workspace", the fixture folder's name). */
export function projectRow(pane, label = 'workspace') {
  return treeRow(pane, 1, label).first();
}

/** The rendered rows in tree order: data-index, aria-level, label. */
async function rowList(pane) {
  const rows = await pane.locator('.monaco-list-row').evaluateAll((els) =>
    els.map((e) => ({
      index: Number(e.getAttribute('data-index')),
      level: Number(e.getAttribute('aria-level')),
      label: (e.querySelector('.label-name')?.textContent ?? '').trim(),
      expanded: e.getAttribute('aria-expanded'),
    })),
  );
  return rows.sort((a, b) => a.index - b.index);
}

/**
 * The child of `parent` (a row locator) at `parent`'s level + 1 whose label matches, found by
 * position (the rows after the parent, up to its next sibling), so that a "Manual" source under
 * Instruction is never mistaken for the one under Persona. Waits for the children to load.
 * Returns a locator pinned to the row's current position (use it right away).
 */
export async function childRow(pane, parent, label, { timeoutMs = 15_000 } = {}) {
  const re = typeof label === 'string' ? new RegExp(`^\\s*${escapeRe(label)}\\s*$`) : label;
  const index = await pollUntil(
    async () => {
      const at = Number(await parent.getAttribute('data-index', { timeout: 2000 }));
      const level = Number(await parent.getAttribute('aria-level', { timeout: 2000 }));
      for (const r of await rowList(pane)) {
        if (r.index <= at) continue;
        if (r.level <= level) break;
        if (r.level === level + 1 && re.test(r.label)) return String(r.index);
      }
      return undefined;
    },
    {
      timeoutMs,
      intervalMs: 100,
      what: `tree row "${label}" under ${(
        await parent
          .locator('.label-name')
          .first()
          .textContent()
          .catch(() => '?')
      )?.trim()}`,
    },
  );
  return pane.locator(`.monaco-list-row[data-index="${index}"]`);
}

/**
 * Expands project > category > source and returns the memory row labelled like `text`
 * (waits for it: the tree refreshes by itself when memories change). The returned locator
 * finds the memory by its label, so it survives tree refreshes.
 */
export async function showMemory(
  pane,
  { project = 'workspace', category, sourceType, text, timeoutMs = 30_000 },
) {
  const p = projectRow(pane, project);
  await expandRow(p, `project ${project}`);
  const c = await childRow(pane, p, CATEGORY_LABEL[category], { timeoutMs });
  await expandRow(c, `category ${CATEGORY_LABEL[category]}`);
  const src = await childRow(pane, c, SOURCE_LABEL[sourceType], { timeoutMs });
  await expandRow(src, `source ${SOURCE_LABEL[sourceType]}`);
  await childRow(pane, src, shortText(text), { timeoutMs });
  const row = treeRow(pane, 4, shortText(text)).first();
  await row.waitFor({ state: 'visible', timeout: timeoutMs });
  return row;
}

/** Label, description and aria-label of a tree row. */
export async function rowInfo(row) {
  return {
    label: ((await row.locator('.label-name').first().textContent()) ?? '').trim(),
    description: (
      (await row
        .locator('.label-description')
        .first()
        .textContent()
        .catch(() => '')) ?? ''
    ).trim(),
    ariaLabel: (await row.getAttribute('aria-label')) ?? '',
    selected: (await row.getAttribute('aria-selected')) === 'true',
    icon: (
      (await row
        .locator('.custom-view-tree-node-item-icon, .codicon')
        .first()
        .getAttribute('class')
        .catch(() => '')) ?? ''
    ).trim(),
  };
}

/** Labels of the rows currently rendered in a pane (for error messages). */
export async function visibleRows(pane) {
  return pane
    .locator('.monaco-list-row')
    .evaluateAll((els) =>
      els.map(
        (e) =>
          `${e.getAttribute('aria-level')}:${(e.querySelector('.label-name')?.textContent ?? '').trim()}${e.querySelector('.label-description')?.textContent ? ` (${e.querySelector('.label-description').textContent.trim()})` : ''}`,
      ),
    );
}

// ------------------------------------------------------------------ keyboard-only walks

/** Focuses a Mnemo view by keyboard: F1, "Focus on <name> View", Enter. */
export async function focusView(wb, name) {
  await wb.runCommand(`Focus on ${name} View`, { keyboard: true, expect: `Focus on ${name} View` });
  await pollUntil(
    async () =>
      (await wb.page.evaluate((n) => {
        const el = document.activeElement;
        const pane = el?.closest('.pane');
        return !!pane && (pane.querySelector('.pane-header')?.getAttribute('aria-label') ?? '').startsWith(n);
      }, name)) || undefined,
    { timeoutMs: 10_000, intervalMs: 100, what: `the keyboard focus in the ${name} view` },
  );
}

/** The row the focus outline is on in a pane: level, label, expanded, selected; undefined when none. */
export async function focusedRow(pane) {
  const row = pane.locator('.monaco-list-row.focused').first();
  if (!(await row.count())) return undefined;
  return {
    level: Number(await row.getAttribute('aria-level')),
    label: ((await row.locator('.label-name').first().textContent()) ?? '').trim(),
    expanded: await row.getAttribute('aria-expanded'),
    selected: (await row.getAttribute('aria-selected')) === 'true',
    index: Number(await row.getAttribute('data-index')),
  };
}

/**
 * Moves the focus outline with the arrow keys only, down a path of labels (project › category › source ›
 * memory): a row of the path that is collapsed is opened with →, every other row is passed with ↓. Returns
 * the row reached. The tree must have the keyboard focus.
 */
export async function walkTo(page, pane, path, { maxSteps = 400, log = () => {} } = {}) {
  const want = path.map((p) => (typeof p === 'string' ? p.trim() : p));
  const matches = (i, label) => (typeof want[i] === 'string' ? want[i] === label : want[i].test(label));
  let last;
  for (let step = 0; step < maxSteps; step++) {
    const at = await focusedRow(pane);
    if (!at) {
      await page.keyboard.press('Home');
      continue;
    }
    const depth = at.level - 1;
    log(`walk: at ${JSON.stringify(at)}`);
    if (depth < want.length && matches(depth, at.label)) {
      if (depth === want.length - 1) return at;
      if (at.expanded === 'false') {
        await page.keyboard.press('ArrowRight');
        await waitRowState(pane, at.index, 'aria-expanded', 'true');
        // Its children load after it opens: a ↓ before they are there would jump to its next sibling.
        await pollUntil(
          async () =>
            Number(
              await pane
                .locator(`.monaco-list-row[data-index="${at.index + 1}"]`)
                .getAttribute('aria-level', { timeout: 500 })
                .catch(() => 0),
            ) ===
              at.level + 1 || undefined,
          { timeoutMs: 15_000, intervalMs: 50, what: `the children of ${at.label} to load` },
        );
        continue;
      }
    }
    if (last && last.index === at.index && step > 0) {
      throw new Error(
        `walked to the end of the tree without finding ${path.join(' › ')} (stuck at ${at.label})`,
      );
    }
    last = at;
    await page.keyboard.press('ArrowDown');
    // ↓ moves the outline exactly one row; wait for that row before the next key, so that no key is
    // pressed while the tree still renders (a queued key would pass the row looked for).
    await pollUntil(async () => ((await focusedRow(pane))?.index ?? -1) === at.index + 1 || undefined, {
      timeoutMs: 5000,
      intervalMs: 50,
      what: 'the focus to move one row down',
    }).catch(() => {});
  }
  throw new Error(`no row ${path.join(' › ')} within ${maxSteps} key presses`);
}

/** Moves the focus outline up or down a flat list until it is on the row labelled `label`. */
export async function arrowTo(page, pane, label, { maxSteps = 100 } = {}) {
  for (const key of ['ArrowDown', 'ArrowUp']) {
    for (let step = 0; step < maxSteps; step++) {
      const at = await focusedRow(pane);
      if (at?.label === label) return at;
      await page.keyboard.press(key);
      const moved = await pollUntil(
        async () => ((await focusedRow(pane))?.index ?? -1) !== (at?.index ?? -2) || undefined,
        { timeoutMs: 1500, intervalMs: 50, what: 'the focus to move' },
      ).catch(() => false);
      if (!moved) break; // the end of the list: try the other direction
    }
  }
  throw new Error(`no row "${label}" in ${await visibleRows(pane)}`);
}

async function waitRowState(pane, index, attr, value) {
  await pollUntil(
    async () =>
      (await pane
        .locator(`.monaco-list-row[data-index="${index}"]`)
        .getAttribute(attr)
        .catch(() => null)) === value || undefined,
    { timeoutMs: 10_000, intervalMs: 50, what: `row ${index} ${attr}=${value}` },
  );
}

/** The text the status bar item flashes (its accessibility label starts with the flash). */
export async function statusText(page) {
  return (
    (await statusItem(page)
      .textContent()
      .catch(() => '')) ?? ''
  )
    .replace(/\s+/g, ' ')
    .trim();
}

/** The title of a memory's details tab (views/details.ts: the memory's text, cut at 40). */
export function detailsTitle(m) {
  return shortText(m.text, 40);
}

/**
 * A tree row's inline action by its title. A command with a key says it in the label ("Mark as Wrong
 * (Shift+Delete)", package.json keybindings), so the title is matched alone or followed by its key.
 */
export function inlineAction(row, title) {
  return row.locator(
    `.actions .action-label[aria-label="${title}"], .actions .action-label[aria-label^="${title} ("]`,
  );
}

/**
 * The content of the webview editor shown (the details page, the edit form): VS Code's webview iframe,
 * laid over the editor area, then the page's own #active-frame.
 */
export function webviewFrame(page) {
  return page.frameLocator('iframe.webview.ready').last().frameLocator('iframe#active-frame');
}

/**
 * Moves the mouse off the workbench and waits for a hover tooltip to go: a row's tooltip (a context view
 * over the tree) left by the pointer takes the next click meant for a row under it.
 */
export async function clearHover(page) {
  await page.mouse.move(1, 1);
  await page
    .locator('.context-view .monaco-hover, .monaco-hover.workbench-hover')
    .first()
    .waitFor({ state: 'hidden', timeout: 5_000 })
    .catch(() => {});
}

/**
 * Opens every collapsed row of the Memories tree above "Other projects" (the workspace's own projects; at most
 * `limit` clicks) and returns every row in order: index, level, label, description.
 */
export async function expandWorkspaceRows(pane, limit = 40) {
  for (let i = 0; i < limit; i++) {
    const index = await pane.locator('.monaco-list-row').evaluateAll((els) => {
      const rows = els
        .map((e) => ({
          index: Number(e.getAttribute('data-index')),
          label: (e.querySelector('.label-name')?.textContent ?? '').trim(),
          collapsed: e.getAttribute('aria-expanded') === 'false',
        }))
        .sort((a, b) => a.index - b.index);
      const end = rows.find((r) => r.label === 'Other projects')?.index ?? Infinity;
      return rows.find((r) => r.collapsed && r.index < end)?.index;
    });
    if (index === undefined) break;
    const row = pane.locator(`.monaco-list-row[data-index="${index}"]`);
    await row.click();
    await pollUntil(async () => (await row.getAttribute('aria-expanded')) !== 'false' || undefined, {
      timeoutMs: 10_000,
      what: 'a row to expand',
    });
  }
  return pane.locator('.monaco-list-row').evaluateAll((els) =>
    els
      .map((e) => ({
        index: Number(e.getAttribute('data-index')),
        level: Number(e.getAttribute('aria-level')),
        label: (e.querySelector('.label-name')?.textContent ?? '').trim(),
        description: (e.querySelector('.label-description')?.textContent ?? '').trim(),
      }))
      .sort((a, b) => a.index - b.index),
  );
}
