// UI (issue 38 items 2, 3, 4): a new user's first steps, in a project of their own — a folder with an
// AGENTS.md and a CLAUDE.md under git that holds no memory yet. Each test opens that folder in the
// workbench (the extension host and its sidecar restart on it) and the fixture workspace again at the end,
// so the other tests find the workbench as they expect.
//
// 1. The Memories view welcomes them with the rules it found; "Import Agent Rules" there makes them
//    memories an agent can recall: the Mnemo icon, then that button — no Command Palette.
// 2. Promote to Repository (the view's "…" › Agents) does not offer AGENTS.md's own rules back to it, and
//    shows its change in one preview with Write / Cancel in the title, nothing modal over it.
// 3. Connect an Agent by keyboard only: both files in one preview, "tracked by git" said; Ctrl+W cancels
//    and writes nothing; Ctrl+Enter writes both and closes the preview.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pollUntil } from '../lib/processes.mjs';
import { shortText, waitSidecarRunning } from './support/mnemo.mjs';

const AGENTS_RULES = [
  'Use pnpm, not npm, for every package in this repository.',
  'Run the linter before every push to the main branch.',
  'Database migrations live in db/migrations and are never edited after merge.',
];
const CLAUDE_RULE = 'Write commit messages in the imperative mood.';

/** The first-run project: created once per run, under the OS temp folder, with git history. */
let folder;
function firstRunFolder() {
  if (folder && fs.existsSync(folder)) return folder;
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-first-run-'));
  fs.writeFileSync(
    path.join(folder, 'AGENTS.md'),
    `# Conventions\n\n${AGENTS_RULES.map((r) => `- ${r}`).join('\n')}\n`,
  );
  fs.writeFileSync(path.join(folder, 'CLAUDE.md'), `# Claude\n\n- ${CLAUDE_RULE}\n`);
  const git = (...args) =>
    execFileSync('git', args, {
      cwd: folder,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Test',
        GIT_AUTHOR_EMAIL: 'test@example.com',
        GIT_COMMITTER_NAME: 'Test',
        GIT_COMMITTER_EMAIL: 'test@example.com',
      },
      stdio: 'ignore',
    });
  git('init', '-q');
  git('add', 'AGENTS.md', 'CLAUDE.md');
  git('commit', '-q', '-m', 'rules');
  return folder;
}

/** Opens `dir` in the workbench (the page reloads; the extension host starts on it). */
async function openFolder(ctx, dir) {
  const origin = new URL(ctx.page.url()).origin;
  await ctx.page.goto(`${origin}/?folder=${encodeURIComponent(dir)}`, { waitUntil: 'domcontentloaded' });
  await ctx.wb.waitReady();
}

/** Runs `body` in the first-run project, then opens the fixture workspace again whatever happened. */
async function inFirstRunProject(ctx, body) {
  const dir = firstRunFolder();
  await openFolder(ctx, dir);
  try {
    await body(dir);
  } finally {
    await ctx.wb.dismiss().catch(() => {});
    await openFolder(ctx, ctx.workspace);
    await waitSidecarRunning(ctx.page, 90_000).catch(() => {});
  }
}

/** The Memories pane of the Mnemo view, opened with a click on its icon, once the sidecar runs. */
async function mnemoView(ctx) {
  await ctx.wb.openViewContainer('Mnemo'); // a click
  const pane = ctx.wb.viewPane('Memories');
  await pane.waitFor({ state: 'visible', timeout: 20_000 });
  await waitSidecarRunning(ctx.page, 90_000);
  return pane;
}

/** Opens every collapsed row of the Memories tree (bounded) and returns the rows: label, description. */
async function expandAll(pane) {
  await pollUntil(async () => (await pane.locator('.monaco-list-row').count()) > 0 || undefined, {
    timeoutMs: 60_000,
    what: 'rows in the Memories view',
  });
  for (let i = 0; i < 30; i++) {
    // The workspace's own project only: rows above "Other projects".
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
    const collapsed = pane.locator(`.monaco-list-row[data-index="${index}"]`);
    await collapsed.click();
    await pollUntil(
      async () =>
        (await pane.locator(`.monaco-list-row[data-index="${index}"]`).getAttribute('aria-expanded')) !==
          'false' || undefined,
      { timeoutMs: 10_000, what: 'a row to expand' },
    );
  }
  return pane.locator('.monaco-list-row').evaluateAll((els) =>
    els.map((e) => ({
      label: (e.querySelector('.label-name')?.textContent ?? '').trim(),
      description: (e.querySelector('.label-description')?.textContent ?? '').trim(),
    })),
  );
}

/** Imports the project's rules through the palette when an earlier test has not (tests run alone too). */
async function ensureImported(ctx, pane) {
  const welcome = pane.locator('.welcome-view-content', { hasText: 'Import Agent Rules' });
  const hasRows = async () => (await pane.locator('.monaco-list-row').count()) > 0;
  await pollUntil(async () => (await hasRows()) || (await welcome.count()) > 0 || undefined, {
    timeoutMs: 30_000,
    what: 'the Memories view to show rows or its welcome',
  });
  if (await hasRows()) return;
  await ctx.wb.runCommand('Mnemo: Import Agent Rules…');
  await pollUntil(async () => (await hasRows()) || undefined, { timeoutMs: 60_000, what: 'imported rules' });
}

const quickRows = (page) =>
  page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row')
    .evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim()));

async function pickRow(page, wb, text) {
  await wb.waitQuickInputFocused(20_000);
  const row = page
    .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text })
    .first();
  await row.waitFor({ state: 'visible', timeout: 20_000 });
  await row.click();
}

/** The changes editor's tab of a proposal (its label starts with `what`). */
function proposalTab(page, what) {
  return page.locator('.part.editor .tab', { hasText: what }).first();
}

export const tests = [
  {
    name: 'first run: the welcome offers the AGENTS.md it found; one click makes its rules memories agents recall',
    timeoutMs: 240_000,
    async run(ctx) {
      const { page, screenshot } = ctx;
      await inFirstRunProject(ctx, async () => {
        const pane = await mnemoView(ctx); // click 1
        const welcome = pane.locator('.welcome-view-content');
        await welcome
          .filter({ hasText: "No memories in this workspace yet, but it has your agents' rules" })
          .waitFor({ state: 'visible', timeout: 30_000 });
        const said = ((await welcome.textContent()) ?? '').replace(/\s+/g, ' ');
        for (const step of [
          'Import Agent Rules',
          'Connect an Agent',
          'Import a Chat Export',
          'Restore a Backup',
        ])
          if (!said.includes(step)) throw new Error(`the welcome does not offer "${step}": ${said}`);
        if (/Search Memories/.test(said) && !/other projects/.test(said))
          throw new Error('the welcome offers Search with nothing to search');
        const review = ctx.wb.viewPane('Review Queue');
        if (await review.locator('.welcome-view-content .monaco-button', { hasText: 'Search' }).count())
          throw new Error('the empty Review Queue still offers a Search button');
        await screenshot('welcome');

        await welcome.locator('.monaco-button', { hasText: 'Import Agent Rules' }).first().click(); // click 2
        const rows = await expandAll(pane);
        for (const rule of [...AGENTS_RULES, CLAUDE_RULE]) {
          const row = rows.find((r) => r.label === shortText(rule));
          if (!row) throw new Error(`"${rule}" is not a memory: ${rows.map((r) => r.label).join(' | ')}`);
          // What an agent recalls: neither waiting for review nor wrong.
          if (/pending|wrong/.test(row.description))
            throw new Error(`"${rule}" is not one agents recall: ${row.description}`);
        }
        await screenshot('rules-imported');
      });
    },
  },
  {
    name: "Promote to Repository leaves AGENTS.md's own rules out and previews in one tab with Write in its title",
    timeoutMs: 240_000,
    async run(ctx) {
      const { page, wb, screenshot } = ctx;
      await inFirstRunProject(ctx, async (dir) => {
        const pane = await mnemoView(ctx);
        await ensureImported(ctx, pane);
        // The view's "…" menu › Agents › Promote to Repository…
        const header = pane.locator('.pane-header').first();
        await header.hover();
        await header.locator('.actions .action-label[aria-label^="More Actions"]').first().click();
        await page.locator('.context-view .monaco-menu .action-item', { hasText: 'Agents' }).first().hover();
        await page
          .locator('.context-view .monaco-menu .action-item', { hasText: 'Promote to Repository' })
          .first()
          .click({ timeout: 10_000 });
        await pickRow(page, wb, 'AGENTS.md');
        await wb.waitQuickInputFocused(20_000);
        const placeholder = await page
          .locator('.quick-input-widget input.input')
          .getAttribute('placeholder', { timeout: 20_000 });
        const rows = await quickRows(page);
        for (const rule of AGENTS_RULES)
          if (rows.some((r) => r.includes(shortText(rule, 60))))
            throw new Error(`AGENTS.md's own rule is offered back to it: ${rule}`);
        if (!rows.some((r) => r.includes(CLAUDE_RULE)))
          throw new Error(`CLAUDE.md's rule not offered: ${rows}`);
        if (rows.some((r) => /mem_[0-9a-f]{16}/.test(r))) throw new Error(`rows name memory ids: ${rows}`);
        if (!/3 already in AGENTS\.md \(line 3, 4, 5\) left out/.test(placeholder ?? ''))
          throw new Error(`the picker does not say what it left out: ${placeholder}`);
        await screenshot('promote-picker');
        const claude = page
          .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: CLAUDE_RULE })
          .first();
        await claude
          .locator('.quick-input-list-checkbox, input[type=checkbox], .monaco-checkbox')
          .first()
          .click();
        await page.keyboard.press('Enter');

        const tab = proposalTab(page, 'Promote 1 memory to AGENTS.md');
        await tab.waitFor({ state: 'visible', timeout: 30_000 });
        if (!/AGENTS\.md is tracked by git/.test((await tab.textContent()) ?? ''))
          throw new Error(`the preview does not say AGENTS.md is tracked by git: ${await tab.textContent()}`);
        if (await page.locator('.monaco-dialog-box').count())
          throw new Error('a modal sits over the preview');
        const write = page.locator(
          '.part.editor .title-actions .action-label[aria-label^="Write Proposed Changes"]',
        );
        await write.first().waitFor({ state: 'visible', timeout: 10_000 });
        await page
          .locator('.part.editor .title-actions .action-label[aria-label^="Cancel Proposed Changes"]')
          .first()
          .waitFor({ state: 'visible', timeout: 10_000 });
        await screenshot('promote-preview');
        await write.first().click();
        await tab.waitFor({ state: 'detached', timeout: 20_000 });
        const md = fs.readFileSync(path.join(dir, 'AGENTS.md'), 'utf8');
        if (!md.includes(`- ${CLAUDE_RULE} <!-- mem_`)) throw new Error(`not written:\n${md}`);
        for (const rule of AGENTS_RULES)
          if (md.split(rule).length !== 2) throw new Error(`"${rule}" is in AGENTS.md twice:\n${md}`);
        await screenshot('promote-written');
      });
    },
  },
  {
    name: 'Connect an Agent by keyboard: both files in one preview; Ctrl+W writes nothing, Ctrl+Enter writes both',
    timeoutMs: 240_000,
    async run(ctx) {
      const { page, wb, screenshot } = ctx;
      await inFirstRunProject(ctx, async (dir) => {
        await mnemoView(ctx);
        const connect = async () => {
          await wb.runCommand('Mnemo: Connect an Agent…', { keyboard: true });
          await wb.waitQuickInputFocused(20_000);
          await page.keyboard.type('Claude Code');
          await page.keyboard.press('Enter');
          await wb.waitQuickInputFocused(20_000);
          await pollUntil(
            async () => (await quickRows(page)).some((r) => r.includes('pointer')) || undefined,
            {
              timeoutMs: 10_000,
              what: 'the pointer question',
            },
          );
          await page.keyboard.press('Enter'); // "Also add a pointer to CLAUDE.md"
          const tab = proposalTab(page, 'Connect Claude Code');
          await tab.waitFor({ state: 'visible', timeout: 30_000 });
          return tab;
        };
        const mcp = path.join(dir, '.mcp.json');
        let tab = await connect();
        const title = (await tab.textContent()) ?? '';
        if (!/write 2 files\?/.test(title) || !/CLAUDE\.md is tracked by git/.test(title))
          throw new Error(`the preview's title: ${title}`);
        if ((await page.locator('.part.editor .tab').count()) !== 1)
          throw new Error('the change opened more than one tab');
        if (await page.locator('.monaco-dialog-box').count())
          throw new Error('a modal sits over the preview');
        await screenshot('connect-preview');
        await page.keyboard.press('Control+W');
        await tab.waitFor({ state: 'detached', timeout: 20_000 });
        if (fs.existsSync(mcp)) throw new Error('closing the preview wrote the configuration');

        tab = await connect();
        await page.keyboard.press('Control+Enter');
        await tab.waitFor({ state: 'detached', timeout: 20_000 });
        await pollUntil(async () => fs.existsSync(mcp) || undefined, {
          timeoutMs: 10_000,
          what: '.mcp.json',
        });
        if (!/mnemo/.test(fs.readFileSync(mcp, 'utf8'))) throw new Error('.mcp.json has no mnemo server');
        if (!/recall/.test(fs.readFileSync(path.join(dir, 'CLAUDE.md'), 'utf8')))
          throw new Error('CLAUDE.md has no pointer');
        await screenshot('connect-written');
      });
    },
  },
];
