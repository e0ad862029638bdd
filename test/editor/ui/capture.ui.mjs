// UI (issue 32, "done when"): a workspace of two folders, each with its agent's sessions on this machine —
// Claude Code in one, Codex in the other, written where each agent keeps them (under code-server's HOME).
// The window asks once, naming both agents. While that question waits, the person runs "Learn from Agent
// Sessions…" (a question may sit unseen in the notification centre): the list of agents comes at once instead
// of "already asking"; closed, it leaves the question as it was. One click on the question ("Learn from All")
// then fills both projects' trees, each memory in its own folder's project and naming the agent it came from.
// Then both transcripts change again (Claude Code appends an exchange, Codex's file is rewritten with one more
// turn): the new turns are learned and nothing is learned twice. The fixture workspace is opened again at the end and the answers are taken
// back, so the other tests find the workbench as they expect.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pollUntil } from '../lib/processes.mjs';
import { expandWorkspaceRows, waitSidecarRunning } from './support/mnemo.mjs';

const CC_RULE = 'From now on the orders API returns money amounts as integer cents, never as floats.';
const CC_LATER = 'We decided the orders API rejects requests without an Idempotency-Key header.';
const CX_RULE = 'We decided the web shop caches product pages for five minutes at the CDN.';
const CX_LATER = 'From now on the web shop images are served as AVIF with a WebP fallback.';

const iso = (msAgo) => new Date(Date.now() - msAgo).toISOString();
const HOUR = 3_600_000;

/** Both folders and the .code-workspace that opens them. */
function makeWorkspace() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-two-folders-'));
  const orders = path.join(root, 'orders-api');
  const shop = path.join(root, 'web-shop');
  for (const d of [orders, shop]) fs.mkdirSync(d);
  fs.writeFileSync(path.join(orders, 'README.md'), '# orders-api\n');
  fs.writeFileSync(path.join(shop, 'README.md'), '# web-shop\n');
  const file = path.join(root, 'shop.code-workspace');
  fs.writeFileSync(
    file,
    JSON.stringify({ folders: [{ path: 'orders-api' }, { path: 'web-shop' }] }, null, 2),
  );
  return { root, orders, shop, file };
}

/** A Claude Code session in `cwd` (its documented line format): the person's rule and the agent's answer. */
function claudeLines(cwd, sessionId, turns) {
  const common = {
    cwd,
    sessionId,
    version: '2.1.7',
    gitBranch: 'main',
    userType: 'external',
    isSidechain: false,
  };
  let parent = null;
  return turns.map(([role, text, msAgo], i) => {
    const uuid = `${sessionId.slice(0, 8)}-u${i}`;
    const line =
      role === 'user'
        ? {
            ...common,
            type: 'user',
            uuid,
            parentUuid: parent,
            timestamp: iso(msAgo),
            message: { role: 'user', content: text },
          }
        : {
            ...common,
            type: 'assistant',
            uuid,
            parentUuid: parent,
            timestamp: iso(msAgo),
            message: {
              id: `msg_${i}_${sessionId.slice(0, 6)}`,
              role: 'assistant',
              content: [{ type: 'text', text }],
            },
          };
    parent = uuid;
    return JSON.stringify(line);
  });
}

/** A Codex rollout in `cwd` (session_meta, then response items). */
function codexLines(cwd, threadId, turns) {
  const rec = (msAgo, type, payload) => JSON.stringify({ timestamp: iso(msAgo), type, payload });
  return [
    rec(2 * HOUR, 'session_meta', {
      id: threadId,
      timestamp: iso(2 * HOUR),
      cwd,
      originator: 'codex_cli_rs',
      cli_version: '0.61.0',
      source: 'cli',
    }),
    ...turns.map(([role, text, msAgo]) =>
      rec(msAgo, 'response_item', {
        type: 'message',
        role,
        content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
      }),
    ),
  ];
}

/** Writes a transcript whole, dated an hour ago: a finished session, nothing of it held back. */
function writeQuiet(file, lines) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const t = (Date.now() - HOUR) / 1000;
  fs.utimesSync(file, t, t);
}

/**
 * Opens `query` in the page and waits for the workbench. With `expect`, waits until the window shows that
 * workspace and its first folder in the Explorer: code-server 4.99 sometimes opens the workspace with no folder
 * at all ("You have not yet added a folder to the workspace" for good, the file on disk intact; seen in 2 of 9
 * runs of this test alone), and the extension then rightly finds no folder to ask about. That is the harness's
 * navigation, not the product: the page is loaded again, at most three times, each miss logged.
 */
async function open(ctx, query, expect) {
  const origin = new URL(ctx.page.url()).origin;
  for (let attempt = 1; ; attempt++) {
    await ctx.page.goto(`${origin}/?${query}`, { waitUntil: 'domcontentloaded' });
    await ctx.wb.waitReady();
    if (!expect) return;
    const empty = ctx.page.getByText('You have not yet added a folder to the workspace');
    const folder = ctx.page.locator('.explorer-folders-view .monaco-list-row', { hasText: expect.folder });
    // The Explorer says "no folder" for a moment while any workspace loads: only the folder's row counts.
    const shown = await pollUntil(
      async () =>
        ((await ctx.page.title()).includes(expect.title) && (await folder.first().isVisible())) || undefined,
      { timeoutMs: 20_000, intervalMs: 250, what: `the window to open ${expect.title}` },
    ).catch(() => false);
    if (shown) return;
    const state = (await empty.isVisible()) ? 'empty' : 'not shown';
    const seen = `"${await ctx.page.title()}", ${state === 'empty' ? 'no folder in it' : `no ${expect.folder} in the Explorer`}`;
    if (attempt === 3) throw new Error(`the window did not open ${expect.title} in 3 loads: ${seen}`);
    ctx.log(`load ${attempt} of ${query} opened ${seen}; loading it again`);
  }
}

/** Every row of the Memories tree's workspace projects, expanded: level, label, description, in order. */
async function workspaceRows(pane) {
  const rows = await expandWorkspaceRows(pane);
  const end = rows.findIndex((r) => r.label === 'Other projects');
  return end === -1 ? rows : rows.slice(0, end);
}

/** The memory rows under each project row (level 1), by project label. */
function byProject(rows) {
  const out = new Map();
  let project;
  for (const r of rows) {
    if (r.level === 1) out.set((project = r.label), []);
    else if (project && r.level === 4) out.get(project).push(r);
  }
  return out;
}

const show = (m) =>
  [...m]
    .map(([p, rs]) => `${p}: ${rs.map((r) => `${r.label} (${r.description})`).join(' | ') || 'nothing'}`)
    .join('; ');

/** Waits until every project's rows satisfy `ok`; returns them. */
async function waitForTrees(ctx, pane, ok, what, timeoutMs = 120_000) {
  let last = new Map();
  try {
    return await pollUntil(
      async () => {
        last = byProject(await workspaceRows(pane));
        return ok(last) ? last : undefined;
      },
      { timeoutMs, intervalMs: 1000, what },
    );
  } catch (e) {
    throw new Error(`${e.message}; the tree shows ${show(last)}`);
  }
}

const has = (rows, text, agent) =>
  rows.filter((r) => text.startsWith(r.label.replace(/…$/, '')) && new RegExp(agent).test(r.description));

/** The user settings without Mnemo's capture answers (the other tests run without them). */
function forgetAnswers(file) {
  try {
    const s = JSON.parse(fs.readFileSync(file, 'utf8'));
    delete s['mnemo.capture.sources'];
    fs.writeFileSync(file, JSON.stringify(s, null, 2));
  } catch {
    // a settings file the test cannot read is left as it is
  }
}

export const tests = [
  {
    name: 'two folders, two agents: one consent click fills both projects’ trees, each memory naming its agent; changed transcripts teach nothing twice',
    timeoutMs: 360_000,
    async run(ctx) {
      const { page, wb, home, screenshot, log } = ctx;
      const ws = makeWorkspace();
      const ccFile = path.join(
        home,
        '.claude',
        'projects',
        ws.orders.replace(/[^A-Za-z0-9]/g, '-'),
        '5b0c1d2e-3f4a-4b5c-8d6e-7f8091a2b3c4.jsonl',
      );
      const cxThread = '0199b2c3-d4e5-7f60-8a9b-0c1d2e3f4b01';
      const cxFile = path.join(
        home,
        '.codex',
        'sessions',
        '2026',
        '12',
        '05',
        `rollout-2026-12-05T10-00-00-${cxThread}.jsonl`,
      );
      const ccTurns = [
        ['user', CC_RULE, 2 * HOUR],
        [
          'assistant',
          'Understood: amounts in the orders API are integer cents from now on.',
          2 * HOUR - 5000,
        ],
      ];
      const cxTurns = [
        ['user', CX_RULE, 2 * HOUR],
        ['assistant', 'Noted: product pages are cached for five minutes at the CDN.', 2 * HOUR - 5000],
      ];
      writeQuiet(ccFile, claudeLines(ws.orders, '5b0c1d2e-3f4a-4b5c-8d6e-7f8091a2b3c4', ccTurns));
      writeQuiet(cxFile, codexLines(ws.shop, cxThread, cxTurns));
      try {
        await open(ctx, `workspace=${encodeURIComponent(ws.file)}`, {
          title: 'shop (Workspace)',
          folder: 'orders-api',
        });
        await waitSidecarRunning(page, 90_000);

        // One question for the whole window, naming both agents; one click answers it.
        const question = page
          .locator('.notification-toast-container, .notifications-toasts .monaco-list-row', {
            hasText: "Mnemo found your agents' sessions",
          })
          .first();
        const offered = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
        const offeredText = async () =>
          (
            await offered.evaluateAll((els) =>
              els.map((e) => e.getAttribute('aria-label') || e.textContent || ''),
            )
          ).join(' | ');
        const named = (what, text) => {
          for (const agent of ['Claude Code', 'Codex'])
            if (!text.includes(agent)) throw new Error(`${what} does not name ${agent}: ${text}`);
          // The Chat view VS Code opened here holds no chat: not a session to ask about.
          if (text.includes('VS Code Chat')) throw new Error(`${what} names an empty chat: ${text}`);
        };
        const toast = await question
          .waitFor({ state: 'visible', timeout: 45_000 })
          .then(() => question)
          .catch(() => undefined);
        if (toast) {
          const asked = (
            (await toast.locator('.notification-list-item-message').first().textContent()) ?? ''
          ).replace(/\s+/g, ' ');
          log(`asked: ${asked}`);
          named('the question', asked);
          await screenshot('asked');
        } else {
          // Toasts beyond the few VS Code shows at once wait in the notification centre, unseen.
          log('no question shown after 45 s (it may wait in the notification centre)');
        }
        // The person's own way to the same consent, while the question waits: the list comes at once.
        await wb.runCommand('Mnemo: Learn from Agent Sessions…');
        await pollUntil(
          async () => (await offered.filter({ hasText: 'Codex' }).first().isVisible()) || undefined,
          {
            timeoutMs: 30_000,
            intervalMs: 250,
            what: 'the list of agents from Learn from Agent Sessions… while the question waits',
          },
        ).catch(async (e) => {
          await screenshot('no-list');
          throw e;
        });
        const listed = await offeredText();
        log(`offered: ${listed}`);
        named('the list of agents', listed);
        if (toast) {
          // Closed without a choice, the list changes nothing; the question still takes its one click.
          await page.keyboard.press('Escape');
          await offered.first().waitFor({ state: 'hidden', timeout: 10_000 });
          await toast.locator('.monaco-button', { hasText: 'Learn from All' }).first().click();
        } else {
          await page.keyboard.press('Enter'); // both are picked: the agents nobody said no to
        }

        await wb.openViewContainer('Mnemo');
        const pane = wb.viewPane('Memories');
        await pane.waitFor({ state: 'visible', timeout: 20_000 });
        await wb.widenSidebar(560).catch(() => {});
        for (const other of ['Review Queue', 'Agent Sessions', 'What My Agents Saw']) {
          const header = wb.viewPane(other).locator('.pane-header').first();
          if ((await header.count()) && (await header.getAttribute('aria-expanded')) === 'true')
            await header.click();
        }
        const first = await waitForTrees(
          ctx,
          pane,
          (m) =>
            has(m.get('orders-api') ?? [], CC_RULE, 'Claude Code').length === 1 &&
            has(m.get('web-shop') ?? [], CX_RULE, 'Codex').length === 1,
          "both projects' memories, each naming its agent",
        );
        // Never in the other folder's project.
        if (
          has(first.get('web-shop'), CC_RULE, '').length ||
          has(first.get('orders-api'), CX_RULE, '').length
        )
          throw new Error(`a memory landed in the other folder's project: ${show(first)}`);
        await screenshot('both-trees');

        // Claude Code appends an exchange; Codex's file is rewritten whole with one more turn.
        fs.appendFileSync(
          ccFile,
          claudeLines(ws.orders, '5b0c1d2e-3f4a-4b5c-8d6e-7f8091a2b3c4', [
            ...ccTurns,
            ['user', CC_LATER, HOUR + 60_000],
            ['assistant', 'Agreed: no Idempotency-Key, no order.', HOUR + 55_000],
          ])
            .slice(2)
            .join('\n') + '\n',
        );
        writeQuiet(cxFile, codexLines(ws.shop, cxThread, [...cxTurns, ['user', CX_LATER, HOUR + 60_000]]));
        const t = (Date.now() - HOUR) / 1000;
        fs.utimesSync(ccFile, t, t);
        const after = await waitForTrees(
          ctx,
          pane,
          (m) =>
            has(m.get('orders-api') ?? [], CC_LATER, 'Claude Code').length >= 1 &&
            has(m.get('web-shop') ?? [], CX_LATER, 'Codex').length >= 1,
          'the new turns learned',
        );
        await screenshot('after-change');
        for (const [project, text] of [
          ['orders-api', CC_RULE],
          ['orders-api', CC_LATER],
          ['web-shop', CX_RULE],
          ['web-shop', CX_LATER],
        ]) {
          const n = has(after.get(project), text, '').length;
          if (n !== 1) throw new Error(`"${text}" shows ${n} times in ${project}: ${show(after)}`);
        }
      } finally {
        forgetAnswers(ctx.userSettingsFile);
        fs.rmSync(path.join(home, '.claude'), { recursive: true, force: true });
        fs.rmSync(path.join(home, '.codex'), { recursive: true, force: true });
        await wb.dismiss().catch(() => {});
        await open(ctx, `folder=${encodeURIComponent(ctx.workspace)}`);
        await waitSidecarRunning(page, 90_000).catch(() => {});
      }
    },
  },
];
