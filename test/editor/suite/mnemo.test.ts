/**
 * Mnemo's extension side against the real sidecar: the tree per project, mark wrong, the review queue,
 * search -> reveal, dashboard stats, language model tools, the @mnemo participant. Each test seeds its
 * own memories (unique texts, or a unique project id) through the exported API and deletes them after.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MnemoApi } from '../../../src/api';
import type { Memory } from '../../../sidecar/model';
import {
  AuditListRequest,
  ConfirmRequest,
  CountsRequest,
  DeleteRequest,
  FlushQueueRequest,
  GetRequest,
  IngestRequest,
  ListRequest,
  MarkWrongRequest,
  PromoteRequest,
  RememberRequest,
  SearchRequest,
  StatsRequest,
} from '../../../sidecar/protocol';
import { IN_USE } from '../../../src/views/counts';
import { formValues } from '../../../src/views/editPatch';
import type { MemoryNode, TreeNode } from '../../../src/views/memoryTree';
import type { ReviewNode } from '../../../src/views/reviewTree';
import { filterFor } from '../../../src/views/dashboard';
import { mnemo, uniqueTag, waitFor } from './support';

describe('Mnemo extension', function () {
  this.timeout(180_000);
  let api: MnemoApi;
  const seeded: string[] = [];

  before(async () => {
    api = await mnemo();
  });

  after(async () => {
    if (api && seeded.length)
      await api.request(DeleteRequest, { ids: seeded, by: 'editor-tests' }).catch(() => undefined);
  });

  async function remember(
    text: string,
    projectId: string,
    extra: { pending?: boolean; source_ref?: string[] } = {},
  ): Promise<string> {
    // Only the audited promotion writes into global: a global memory is remembered in a project, then promoted.
    const decision = await api.request(RememberRequest, {
      text,
      project_id: projectId === 'global' ? mainProject() : projectId,
      category: 'instruction',
      source_type: 'manual',
      source_ref: extra.source_ref ?? ['src/example.ts:1'],
      added_by: 'editor-tests',
      pending: extra.pending,
    });
    assert.ok(decision.id, `remember returned no id: ${JSON.stringify(decision)}`);
    if (projectId === 'global') await api.request(PromoteRequest, { id: decision.id, by: 'editor-tests' });
    seeded.push(decision.id);
    return decision.id;
  }

  function mainProject(): string {
    const p = api.projects().find((x) => x.projectId !== 'global');
    assert.ok(p, 'the test workspace has a folder');
    return p.projectId;
  }

  /** Walks project > category > source in the provider (what the view renders) to the memory node. */
  async function findInTree(projectId: string, memoryId: string): Promise<MemoryNode | undefined> {
    const tree = api.views.memories;
    const roots = await tree.getChildren();
    const project = roots.find((n) => n.kind === 'project' && n.projectId === projectId);
    if (!project) return undefined;
    for (const category of await tree.getChildren(project)) {
      for (const source of await tree.getChildren(category)) {
        for (const node of await tree.getChildren(source)) {
          if (node.kind === 'memory' && node.memory.id === memoryId) return node;
        }
      }
    }
    return undefined;
  }

  it('the tree shows a node per workspace project plus Global, each with its seeded memories', async () => {
    const projectId = mainProject();
    const tag = uniqueTag('tree');
    const own = await remember(`Deploy the ${tag} gateway with make release, never by hand.`, projectId);
    const global = await remember(`Prefer pnpm over npm for ${tag} JavaScript repositories.`, 'global');

    // On a fresh store these are the first memories: the tree shows its first-run welcome (no rows) until
    // the change reaches the workspace counts, then the projects.
    const ids = await waitFor('the project rows', async () => {
      const projects = (await api.views.memories.getChildren())
        .filter((n): n is Extract<TreeNode, { kind: 'project' }> => n.kind === 'project')
        .map((n) => n.projectId);
      return projects.length ? projects : undefined;
    });
    assert.deepEqual(
      ids,
      api.projects().map((p) => p.projectId),
      'one root per workspace project, Global last',
    );
    assert.equal(ids[ids.length - 1], 'global');

    const node = await waitFor('the project memory in its subtree', () => findInTree(projectId, own));
    assert.ok(node.parent.kind === 'source', 'grouped: the memory hangs under its source');
    assert.equal(node.parent.parent.category, 'instruction');
    assert.equal(node.parent.sourceType, 'manual');
    const item = api.views.memories.getTreeItem(node);
    assert.match(String(item.description), /%/, 'the description shows the confidence');
    assert.ok(
      item.accessibilityInformation?.label.includes(tag),
      'the item has an accessibility label with its text',
    );
    // The tooltip is what a hover resolves (built lazily: a reload renders every listed memory).
    const hovered = api.views.memories.resolveTreeItem(item, node);
    assert.ok(
      hovered.tooltip instanceof vscode.MarkdownString && hovered.tooltip.value.includes('UTC'),
      'the tooltip shows times with UTC',
    );
    await waitFor('the global memory under Global', () => findInTree('global', global));
    assert.equal(
      await findInTree(projectId, global),
      undefined,
      'a global memory is not listed under the project',
    );
  });

  it('mark wrong updates the store; the node moves behind the "N hidden" row, shown on request', async () => {
    const projectId = mainProject();
    const id = await remember(`The ${uniqueTag('wrong')} staging database listens on port 6543.`, projectId);
    const node = await waitFor('the memory in the tree', () => findInTree(projectId, id));
    const result = (await vscode.commands.executeCommand('mnemo.markWrong', node)) as Memory[] | undefined;
    assert.equal(result?.[0]?.status, 'wrong');
    const stored = await api.request(GetRequest, { id });
    assert.equal(stored.status, 'wrong');
    assert.equal(stored.confidence_score, 0);
    // Issue 19: wrong memories are hidden by default; the project says how many are hidden.
    await waitFor('the wrong memory to leave the tree', async () => !(await findInTree(projectId, id)));
    const tree = api.views.memories;
    const project = (await tree.getChildren()).find((n) => n.kind === 'project' && n.projectId === projectId);
    assert.ok(project);
    const hidden = await waitFor('the hidden row', async () =>
      (await tree.getChildren(project)).find((n) => n.kind === 'hidden'),
    );
    assert.match(String(tree.getTreeItem(hidden).label), /^\d+ hidden$/);
    assert.match(String(tree.getTreeItem(hidden).description), /\d+ wrong/);
    await vscode.commands.executeCommand('mnemo.showHiddenMemories');
    try {
      const after = await waitFor('the node to show the wrong state', async () => {
        const n = await findInTree(projectId, id);
        return n && n.memory.status === 'wrong' ? n : undefined;
      });
      const item = tree.getTreeItem(after);
      assert.equal(item.contextValue, 'mnemo:memory:wrong');
      assert.match(String(item.description), /\bwrong\b/, 'said in words, no letter badge');
    } finally {
      await vscode.commands.executeCommand('mnemo.hideHiddenMemories');
    }
  });

  it('Recent mode lists a project flat, category in the description, in the chosen order', async () => {
    const projectId = mainProject();
    const tag = uniqueTag('recent');
    const older = await remember(`The ${tag} cache TTL is 300 seconds.`, projectId);
    const newer = await remember(`The ${tag} queue retries three times.`, projectId);
    const tree = api.views.memories;
    await vscode.commands.executeCommand('mnemo.showRecentMemories');
    try {
      assert.equal(tree.options.mode, 'recent');
      assert.match(api.views.memoriesView.description ?? '', /Recent/);
      // On a fresh store this is the first memory: the tree shows its first-run welcome (no rows) until
      // the change reaches the workspace counts, then the project.
      const project = await waitFor('the project in the tree', async () =>
        (await tree.getChildren()).find((n) => n.kind === 'project' && n.projectId === projectId),
      );
      const rows = await waitFor('the flat list with both memories', async () => {
        const r = (await tree.getChildren(project)).filter((n): n is MemoryNode => n.kind === 'memory');
        return r.some((n) => n.memory.id === older) && r.some((n) => n.memory.id === newer) ? r : undefined;
      });
      assert.ok(
        rows.every((n) => n.parent === project),
        'no category or source level',
      );
      const ids = rows.map((n) => n.memory.id);
      assert.ok(ids.indexOf(newer) < ids.indexOf(older), 'newest first by default');
      assert.match(String(tree.getTreeItem(rows[0]).description), /^(Persona|Episodic|Instruction) · \d+%/);
      tree.setOptions({ sort: 'oldest' });
      const oldest = (await tree.getChildren(project)).filter((n): n is MemoryNode => n.kind === 'memory');
      const reordered = oldest.map((n) => n.memory.id);
      assert.ok(reordered.indexOf(older) < reordered.indexOf(newer), 'oldest first when asked');
      assert.match(api.views.memoriesView.description ?? '', /oldest first/);
      // A filter from the view title narrows the flat list too.
      api.views.setFilter({ label: 'Persona', category: 'persona' });
      const filtered = (await tree.getChildren(project)).filter((n): n is MemoryNode => n.kind === 'memory');
      assert.ok(!filtered.some((n) => n.memory.id === older), 'an instruction is filtered out');
    } finally {
      api.views.setFilter(undefined);
      tree.setOptions({ sort: 'newest' });
      await vscode.commands.executeCommand('mnemo.showGroupedMemories');
    }
    assert.equal(tree.options.mode, 'grouped');
  });

  it('Open Source on a chat memory shows the conversation it came from, its own turn marked', async () => {
    const projectId = mainProject();
    const tag = uniqueTag('evidence');
    const report = await api.request(IngestRequest, {
      project_id: projectId,
      source_type: 'chat',
      session_id: `chat-${tag}`,
      messages: [
        { id: `${tag}-1`, role: 'user', content: 'Can you check why the nightly build is slow?' },
        {
          id: `${tag}-2`,
          role: 'assistant',
          content: 'The cache was cold; it warmed up after the first run.',
        },
        {
          id: `${tag}-3`,
          role: 'user',
          content: `Remember this: the ${tag} nightly build must always run with --frozen-lockfile.`,
        },
      ],
    });
    const id = report.decisions.find((d) => d.id && d.text.includes(tag))?.id;
    assert.ok(id, `a memory was kept: ${JSON.stringify(report.decisions)}`);
    seeded.push(id);
    await vscode.commands.executeCommand('mnemo.openSource', id);
    const text = await waitFor('the details with the conversation', () => {
      const html = api.views.details.shown?.id === id ? api.views.details.html : undefined;
      return html?.includes('Where it came from') ? html : undefined;
    });
    assert.match(text, new RegExp(`Conversation chat-${tag} · Chat`));
    assert.match(
      text,
      /^ {2} .*user +Can you check why the nightly build is slow\?$/m,
      'the turns before it',
    );
    assert.match(
      text,
      new RegExp(`<span class="own"[^>]*> {2}▶ .*user +Remember this: the ${tag} nightly build`),
      'its own turn marked',
    );
    // Memories change all the time in the background: the page is set again only when it would read
    // differently (setting it reloads the webview, which took the focus from an open command palette).
    await remember(`The ${tag} unrelated fact lives in another project.`, `elsewhere-${tag}`);
    api.views.details.refresh();
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(api.views.details.html, text, 'an unchanged memory is not reloaded (same page, same nonce)');
    await api.request(ConfirmRequest, { id, by: 'editor-tests' });
    api.views.details.refresh();
    await waitFor('the details to say it was confirmed', () => api.views.details.html !== text);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Preview Injection says why near memories were not recalled', async () => {
    const projectId = mainProject();
    const tag = uniqueTag('preview');
    const wrong = await remember(`The ${tag} deploy goes through the blue cluster.`, projectId);
    await api.request(MarkWrongRequest, { id: wrong, by: 'editor-tests' });
    const other = await remember(`The ${tag} deploy goes through the green cluster.`, `elsewhere-${tag}`);
    assert.ok(other);
    const doc = await vscode.commands.executeCommand<vscode.TextDocument>(
      'mnemo.previewInjection',
      `Which cluster does the ${tag} deploy go through?`,
    );
    const text = doc.getText();
    assert.match(text, /^## Not recalled/m);
    assert.match(text, new RegExp(`blue cluster.*marked wrong: such memories are never recalled`));
    assert.match(text, new RegExp(`green cluster.*a project not open in this workspace`));
    assert.doesNotMatch(text, /^\| # \| score \| channel/m, 'no raw internals table');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Preview Injection shows the very block the mnemo_recall tool hands an agent', async () => {
    const tag = uniqueTag('same');
    const query = `Which runner builds the ${tag} firmware images?`;
    await remember(`The ${tag} firmware images are built on the arm64 runner.`, mainProject());
    // The preview first: it does not count as a use, so the tool's answer right after sees the same store.
    const preview = await waitFor('Preview Injection to show the memory', async () => {
      const doc = await vscode.commands.executeCommand<vscode.TextDocument>('mnemo.previewInjection', query);
      return doc.getText().includes('arm64 runner') ? doc.getText() : undefined;
    });
    const r = await vscode.lm.invokeTool('mnemo_recall', {
      input: { query },
      toolInvocationToken: undefined,
    });
    const tool = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.ok(tool.includes('arm64 runner'), tool);
    assert.ok(preview.includes(tool.trim()), `preview:\n${preview}\n\ntool:\n${tool}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("Mnemo's own local ports are not auto-forwarded on remote hosts", () => {
    const ports = vscode.workspace
      .getConfiguration('remote')
      .get<Record<string, { onAutoForward?: string }>>('portsAttributes');
    // A plain copy: the configuration proxy resolves a property by a dotted path, and these keys hold dots.
    const plain = JSON.parse(JSON.stringify(ports ?? {})) as Record<string, { onAutoForward?: string }>;
    const ours = Object.entries(plain).filter(([key]) => /chromadb|sidecar/.test(key));
    assert.equal(ours.length, 2, JSON.stringify(ports));
    for (const [key, attrs] of ours) {
      assert.equal(attrs?.onAutoForward, 'ignore', `${key}: ${JSON.stringify(ports)}`);
      assert.ok(
        new RegExp(key).test(
          key.includes('chromadb')
            ? '/usr/bin/node /ext/mnemo.mnemo-0.1.0/node_modules/chromadb/dist/cli.mjs run --path /data/chroma --port 40123'
            : '/usr/bin/node /ext/mnemo.mnemo-0.1.0/dist/sidecar.js --stdio',
        ),
        key,
      );
    }
  });

  it('the edit form opens with the current values; editing only the text leaves category and actionable unchanged', async () => {
    const projectId = mainProject();
    const tag = uniqueTag('edit');
    const id = await remember(`Deploy the ${tag} gatway with make release on Fridays at 10.`, projectId);
    const memory = await api.request(GetRequest, { id });
    assert.equal(memory.category, 'instruction');
    const wasActionable = memory.is_actionable;
    const saved = vscode.commands.executeCommand<Memory | undefined>('mnemo.editMemory', id);
    await waitFor('the edit form to open', () => api.views.editForms.openIds.includes(id));

    // What the form's Save posts when only the typo was fixed: every other field as it opened.
    const opened = formValues(memory);
    assert.equal(opened.category, 'instruction', 'the form opens on the current category, not the first one');
    assert.equal(opened.actionable, wasActionable);
    await api.views.editForms.receive(id, {
      type: 'save',
      values: { ...opened, text: memory.text.replace('gatway', 'gateway') },
    });
    const updated = await saved;
    assert.ok(updated, 'Save resolves with the updated memory');
    assert.equal(updated.text, `Deploy the ${tag} gateway with make release on Fridays at 10.`);
    const stored = await api.request(GetRequest, { id });
    assert.equal(stored.category, 'instruction', 'the category is unchanged');
    assert.equal(stored.is_actionable, wasActionable, 'actionable is unchanged');
    assert.equal(stored.confidence_score, memory.confidence_score, 'confidence is unchanged');
    assert.deepEqual(stored.source_ref, memory.source_ref, 'sources are unchanged');
    const { entries } = await api.request(AuditListRequest, { memory_id: id, limit: 5 });
    const update = entries.find((e) => e.action === 'update');
    assert.deepEqual(
      Object.keys(update?.changes ?? {}).filter((k) => k !== 'updated_at' && !k.startsWith('embedding')),
      ['text'],
      'the audit log records the text alone',
    );
    assert.match(
      api.views.statusBar.flashing ?? '',
      /^Updated “.*”: text$/,
      'the status bar says what changed',
    );
    assert.equal(api.views.editForms.openIds.includes(id), false, 'the form closed after saving');

    // Changing the category says so; saving untouched values changes nothing.
    const again = vscode.commands.executeCommand<Memory | undefined>('mnemo.editMemory', id);
    await waitFor('the edit form to open again', () => api.views.editForms.openIds.includes(id));
    await api.views.editForms.receive(id, {
      type: 'save',
      values: { ...formValues(stored), category: 'persona' },
    });
    assert.equal((await again)?.category, 'persona');
    assert.match(api.views.statusBar.flashing ?? '', /category Instruction → Persona/);
    const untouched = vscode.commands.executeCommand<Memory | undefined>('mnemo.editMemory', id);
    await waitFor('the edit form to open a third time', () => api.views.editForms.openIds.includes(id));
    const current = await api.request(GetRequest, { id });
    await api.views.editForms.receive(id, { type: 'save', values: formValues(current) });
    assert.equal(await untouched, undefined, 'nothing to save');
    assert.equal(
      (await api.request(GetRequest, { id })).updated_at,
      current.updated_at,
      'nothing was written',
    );
  });

  it('Open Source on a memory learned from a conversation opens its details instead of failing', async () => {
    const id = await remember(
      `The ${uniqueTag('details')} on-call rota changes every Monday at 09:00.`,
      mainProject(),
      { source_ref: ['msg:m5', 'terminal:bash'] },
    );
    await vscode.commands.executeCommand('mnemo.openSource', id);
    const text = await waitFor('the details tab', () =>
      api.views.details.shown?.id === id ? api.views.details.html : undefined,
    );
    assert.match(text, /<h1>The .* on-call rota changes every Monday/, 'titled by the memory, in full');
    assert.match(text, /<th scope="row">Kept because<\/th><td>You asked to remember this/, 'why, in words');
    assert.match(
      text,
      /<code>msg:m5<\/code><\/th><td>a message of the conversation/,
      'each source explained',
    );
    assert.match(text, /<code>terminal:bash<\/code><\/th><td>the terminal it was captured in</);
    // A memory a person remembered is confirmed already: its page offers what is left to do with it.
    assert.match(text, /<p class="meta">confirmed · /, 'its state, in words');
    for (const action of ['Edit…', 'Mark as Wrong'])
      assert.ok(text.includes(`>${action}</button>`), `the details offer ${action}`);
    assert.ok(!text.includes('>Confirm</button>'), 'no Confirm on a memory already confirmed');
    assert.ok(!text.includes('>Open Source</button>'), 'no Open Source without a file to open');
    assert.match(api.views.statusBar.flashing ?? '', /No file to open/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Pause Capture stops learning from chats and shows in the status bar until Resume', async function () {
    const participant = api.chat.participant;
    if (!participant) this.skip();
    const context = { history: [] } as unknown as vscode.ChatContext;
    const token = new vscode.CancellationTokenSource().token;
    const ask = (prompt: string) =>
      participant.requestHandler(
        {
          command: undefined,
          prompt,
          references: [],
          toolReferences: [],
          model: undefined,
        } as unknown as vscode.ChatRequest,
        context,
        recordingStream().stream,
        token,
      );
    await vscode.commands.executeCommand('mnemo.pauseCapture');
    try {
      assert.equal(api.views.pause.paused, true);
      await waitFor(
        'the paused mark in the status bar',
        () => !api.views.statusBar.flashing && api.statusBarItem().text.includes('$(debug-pause)'),
      );
      const before = api.chat.captured;
      await ask(`what do we know about the ${uniqueTag('paused')} deploy?`);
      assert.equal(api.chat.captured, before, 'nothing is captured while paused');
    } finally {
      await vscode.commands.executeCommand('mnemo.resumeCapture');
    }
    assert.equal(api.views.pause.paused, false);
    const before = api.chat.captured;
    await ask(`what do we know about the ${uniqueTag('resumed')} deploy?`);
    await waitFor('the exchange to be captured again', () => api.chat.captured > before);
  });

  it('the review queue lists pending memories and confirms them', async () => {
    const projectId = mainProject();
    const id = await remember(
      `Maybe the ${uniqueTag('review')} cache should be flushed after every deploy.`,
      projectId,
      { pending: true },
    );
    const pending = await waitFor('the memory in the review queue', async () => {
      api.views.review.refresh();
      const items = await api.views.review.getChildren();
      return items.find((n: ReviewNode) => n.kind === 'review' && n.memory.id === id);
    });
    const item = api.views.review.getTreeItem(pending);
    assert.match(
      String(item.description),
      /You asked to remember this/,
      'the review item says why it was kept, in words',
    );
    await vscode.commands.executeCommand('mnemo.confirmMemory', pending, [pending]);
    assert.match(
      api.views.statusBar.flashing ?? '',
      /^Confirmed “Maybe the review/,
      'success is said in the status bar, not a toast',
    );
    await waitFor(
      'the store to say confirmed',
      async () => (await api.request(GetRequest, { id })).status === 'confirmed',
    );
    await waitFor(
      'the queue to drop it',
      async () =>
        !(await api.views.review.getChildren()).some((n) => n.kind === 'review' && n.memory.id === id),
    );
  });

  it('search finds a memory and reveals it in the tree', async () => {
    const projectId = mainProject();
    const tag = uniqueTag('search');
    const id = await remember(
      `Rotate the ${tag} signing keys on the first Monday of each quarter.`,
      projectId,
    );
    await waitFor('the sidecar to find it by keyword', async () => {
      const r = await api.request(SearchRequest, { query: tag, mode: 'keyword', limit: 5 });
      return r.items.some((i) => i.memory.id === id);
    });
    // The search command's result is revealed through mnemo.revealMemory (what accepting a QuickPick item
    // runs); driving the QuickPick itself is left to the UI tests, where a real keyboard is available.
    const found = await api.request(SearchRequest, { query: tag, mode: 'keyword', limit: 5 });
    const revealed = await vscode.commands.executeCommand<Memory | undefined>(
      'mnemo.revealMemory',
      found.items[0]?.memory.id,
    );
    assert.equal(revealed?.id, id, 'the revealed result is the seeded memory');
    const selected = () =>
      api.views.memoriesView.selection.some((n) => n.kind === 'memory' && n.memory.id === id);
    await waitFor('the tree selection to be the memory', selected);
    // The views reload whenever the store changes (a capture, another window, the ledger); a reload that
    // lands just after the reveal must not take the person's selection away.
    api.views.memories.refreshProjects([projectId]);
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(selected(), 'still selected after the project reloads');
    api.views.memories.refreshAll();
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(selected(), 'still selected after the whole tree reloads');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  });

  it('a memory revealed while the tree reloads is selected when the command returns', async () => {
    // Under load the workbench can still be fetching a reloaded tree when a reveal arrives; VS Code then
    // resolves the reveal without selecting anything. The person asked to see the memory: it is outlined.
    const projectId = mainProject();
    const missed: number[] = [];
    for (let i = 0; i < 8; i++) {
      const id = await remember(
        `Archive the ${uniqueTag('reload')} ledger every ${i + 2} days at noon.`,
        projectId,
      );
      if (i % 2) api.views.memories.refreshProjects([projectId]);
      else api.views.memories.refreshAll();
      await vscode.commands.executeCommand('mnemo.revealMemory', id);
      if (!api.views.memoriesView.selection.some((n) => n.kind === 'memory' && n.memory.id === id))
        missed.push(i);
    }
    assert.deepEqual(missed, [], 'reveals that returned with the memory not selected');
  });

  it('the dashboard counts memories per project as the status bar does and a number filters the tree', async () => {
    const projectId = `editor-test-${uniqueTag('dash')}`;
    await remember('Use the blue-green deployment for the billing service.', projectId);
    await remember('Run database migrations with --dry-run first.', projectId);
    await remember('Perhaps switch the billing cron to UTC midnight.', projectId, { pending: true });
    // A memory marked wrong is not one of the project's memories: counted apart, in no other number.
    const wrong = await remember('Deploy the billing service with FTP uploads.', projectId);
    await api.request(MarkWrongRequest, { id: wrong, by: 'editor-tests' });

    await vscode.commands.executeCommand('mnemo.openDashboard');
    const stats = await waitFor('the dashboard to show the project', async () => {
      await api.views.dashboard.refresh();
      return api.views.dashboard.lastStats?.projects.find((p) => p.project_id === projectId && p.total === 3);
    });
    assert.equal(stats.pending, 1);
    assert.equal(stats.retired, 1, 'the wrong memory is counted apart');
    assert.equal(stats.by_status.wrong, 1);
    assert.equal(stats.new_7d, 3);
    assert.equal(
      stats.confidence_histogram.reduce((a, b) => a + b, 0),
      3,
    );
    const direct = await api.request(StatsRequest, { project_id: projectId });
    assert.deepEqual(
      direct.projects.find((p) => p.project_id === projectId),
      stats,
    );
    const actionable = await api.request(ListRequest, {
      project_id: projectId,
      include_global: false,
      is_actionable: true,
      limit: 1,
    });
    assert.equal(stats.actionable, actionable.total);
    // A bar filters the tree to exactly the memories it counts (the tree lists memories in use).
    for (const [k, count] of stats.confidence_histogram.entries()) {
      if (count === 0) continue;
      const f = filterFor(projectId, 'bucket', k);
      const listed = await api.request(ListRequest, {
        project_id: projectId,
        include_global: false,
        status: [...IN_USE],
        min_confidence: f.minConfidence,
        max_confidence: f.maxConfidence,
        limit: 1,
      });
      assert.equal(listed.total, count, `the ${f.label} bar counts ${count}, the tree lists ${listed.total}`);
    }

    // What clicking "pending" does: filter the tree to that project's pending memories.
    api.views.setFilter(filterFor(projectId, 'pending'));
    const roots = await api.views.memories.getChildren();
    // The tree's first row says the tree is filtered and by what (like the Problems view), then the project.
    assert.deepEqual(
      roots.map((n) => (n.kind === 'project' ? n.projectId : n.kind)),
      ['filter', projectId],
    );
    const filterRow = api.views.memories.getTreeItem(roots[0]);
    assert.match(String(filterRow.label), /^Filtered: .*pending/);
    assert.equal(filterRow.command?.command, 'mnemo.filterMemories', 'the row changes the filter');
    await vscode.commands.executeCommand('mnemo.clearFilter');
    assert.equal(api.views.memories.filter, undefined);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('registers the language model tools whether or not this VS Code takes its MCP server', () => {
    // The MCP side is agents.test.ts; the LM tools never depend on it.
    assert.deepEqual(api.tools.registered, ['mnemo_recall', 'mnemo_remember']);
  });

  it('registers the language model tools and answers through vscode.lm.invokeTool', async function () {
    if (typeof vscode.lm?.invokeTool !== 'function') this.skip();
    assert.deepEqual(api.tools.registered, ['mnemo_recall', 'mnemo_remember']);
    const names = vscode.lm.tools.map((t) => t.name);
    assert.ok(
      names.includes('mnemo_recall') && names.includes('mnemo_remember'),
      `tools: ${names.join(', ')}`,
    );

    const projectId = mainProject();
    const text = `Always build the ${uniqueTag('tool')} firmware with the release profile before flashing.`;
    await remember(text, projectId);
    const recalled = await waitFor('mnemo_recall to return the memory', async () => {
      const result = await vscode.lm.invokeTool('mnemo_recall', {
        input: { query: text, top_k: 3 },
        toolInvocationToken: undefined,
      });
      const out = result.content
        .map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''))
        .join('');
      return out.includes(text.slice(0, 40)) ? out : undefined;
    });
    assert.ok(recalled.length > 0);

    const fact = `The ${uniqueTag('agent')} CI runners have 16 GB of memory.`;
    const remembered = await vscode.lm.invokeTool('mnemo_remember', {
      input: { text: fact, category: 'episodic' },
      toolInvocationToken: undefined,
    });
    const reply = remembered.content
      .map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''))
      .join('');
    assert.match(reply, /Remembered|Already known/, reply);
    const stored = await waitFor('the agent memory in the review queue', async () => {
      const r = await api.request(SearchRequest, { query: fact.split(' ')[1], mode: 'keyword', limit: 5 });
      return r.items.find((i) => i.memory.text.includes('CI runners'))?.memory;
    });
    seeded.push(stored.id);
    assert.equal(stored.status, 'pending');
  });

  it('What My Agents Saw lists what the language model tool served: client, query, memories; selecting opens them', async function () {
    if (typeof vscode.lm?.invokeTool !== 'function') this.skip();
    assert.ok(api.views.ledgerView, 'the view is in the Mnemo view container');
    const tag = uniqueTag('ledger');
    const text = `The ${tag} gateway restarts are announced in the ops channel first.`;
    const id = await remember(text, mainProject());
    const query = `Where are the ${tag} gateway restarts announced?`;
    const ledger = api.views.ledger;
    await ledger.getChildren(); // loaded before the recall: what follows must reload it
    await waitFor('mnemo_recall to serve the memory', async () => {
      const r = await vscode.lm.invokeTool('mnemo_recall', {
        input: { query },
        toolInvocationToken: undefined,
      });
      return r.content.some(
        (p) => p instanceof vscode.LanguageModelTextPart && p.value.includes('ops channel'),
      );
    });

    // No refresh by hand: the view reloads on mnemo/ledger/changed.
    const row = await waitFor('the recall in What My Agents Saw', async () =>
      (await ledger.getChildren()).find(
        (n) => n.kind === 'served' && n.entry.query === query && n.entry.items.some((i) => i.id === id),
      ),
    );
    const item = ledger.getTreeItem(row);
    assert.equal(item.label, query);
    assert.match(
      String(item.description),
      /^VS Code extension [\d.]+ \(mnemo_recall\) · just now · \d+ items?$/,
      'who was shown it, when, how much',
    );
    const served = (await ledger.getChildren(row)).find((n) => n.kind === 'servedItem' && n.item.id === id);
    assert.ok(served, 'the recall expands to the memory it served');
    const memoryItem = ledger.getTreeItem(served);
    assert.ok(String(memoryItem.label).startsWith(`The ${tag} gateway restarts`), String(memoryItem.label));
    assert.match(String(memoryItem.description), /^memory · score \d\.\d\d · confirmed$/);

    // Selecting the recall opens its page; selecting the memory its details, which say who was shown it.
    const page = await vscode.commands.executeCommand<vscode.TextDocument>(
      item.command!.command,
      ...(item.command!.arguments ?? []),
    );
    assert.match(page.getText(), /^# What VS Code extension [\d.]+ was shown/);
    assert.ok(page.getText().includes(`**Query:** Where are the ${tag} gateway restarts announced?`));
    assert.ok(page.getText().includes(`| 1 | The ${tag} gateway restarts`), page.getText());
    await vscode.commands.executeCommand(
      memoryItem.command!.command,
      ...(memoryItem.command!.arguments ?? []),
    );
    const details = await waitFor('the details page of the served memory', () => {
      const html = api.views.details.shown?.id === id ? api.views.details.html : undefined;
      return html?.includes('Served to agents and people') ? html : undefined;
    });
    assert.match(
      details,
      /<h2>Served to agents and people<\/h2><pre> {2}\d+ times?:\n.* VS Code extension [\d.]+ \(language model tool, mnemo_recall\) {2}&quot;Where are the/,
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** A response stream that records what the participant writes and the buttons it offers. */
  function recordingStream(): {
    stream: vscode.ChatResponseStream;
    text: () => string;
    buttons: vscode.Command[];
  } {
    const out: string[] = [];
    const buttons: vscode.Command[] = [];
    const stream = {
      markdown: (v: string | vscode.MarkdownString) => out.push(typeof v === 'string' ? v : v.value),
      button: (c: vscode.Command) => buttons.push(c),
      progress: (v: string) => out.push(v),
      reference: () => undefined,
      anchor: () => undefined,
      filetree: () => undefined,
      push: () => undefined,
    } as unknown as vscode.ChatResponseStream;
    return { stream, text: () => out.join('\n'), buttons };
  }

  it('the registered @mnemo participant answers from memory without a model, and /forget marks the memory wrong', async function () {
    if (typeof vscode.chat?.createChatParticipant !== 'function') this.skip();
    const participant = api.chat.participant;
    assert.ok(participant, 'the participant is registered');
    assert.equal(participant.id, 'mnemo.chat');
    const tag = uniqueTag('forget');
    const text = `The ${tag} release train leaves every Thursday at 15:00`;
    const id = await remember(text, mainProject());
    const context = { history: [] } as unknown as vscode.ChatContext;
    const token = new vscode.CancellationTokenSource().token;
    const request = (command: string | undefined, prompt: string) =>
      ({
        command,
        prompt,
        references: [],
        toolReferences: [],
        model: undefined,
      }) as unknown as vscode.ChatRequest;

    // What the chat view calls for "@mnemo <question>": the handler VS Code holds for the participant.
    const asked = recordingStream();
    const capturedBefore = api.chat.captured;
    const answer = await waitFor('the answer to name the memory', async () => {
      const r = await participant.requestHandler(
        request(undefined, `when does the ${tag} release train leave?`),
        context,
        asked.stream,
        token,
      );
      return asked.text().includes(tag) ? r : undefined;
    });
    assert.match(asked.text(), /No language model is available, so here is what I remember/);
    assert.ok(
      (answer as { metadata?: { memoryIds?: string[] } }).metadata?.memoryIds?.includes(id),
      'the result names the recalled memory',
    );
    const followups = await participant.followupProvider?.provideFollowups(
      answer as vscode.ChatResult,
      context,
      token,
    );
    assert.deepEqual(
      followups?.map((f) => f.command),
      ['recall'],
      'it offers to show the recalled memories',
    );
    await waitFor('the exchange to be captured for learning', () => api.chat.captured > capturedBefore);

    // "@mnemo /forget …": the best match, and a Mark as Wrong button that works.
    const forgot = recordingStream();
    await participant.requestHandler(
      request('forget', `${tag} release train Thursday`),
      context,
      forgot.stream,
      token,
    );
    assert.match(forgot.text(), new RegExp(`${tag} release train leaves every Thursday`));
    const button = forgot.buttons.find((b) => b.command === 'mnemo.markWrong');
    assert.ok(button, `a Mark as Wrong button; got ${JSON.stringify(forgot.buttons)}`);
    assert.deepEqual(button.arguments, [id]);
    await vscode.commands.executeCommand(button.command, ...(button.arguments ?? []));
    await waitFor(
      'the memory to be wrong in the store',
      async () => (await api.request(GetRequest, { id })).status === 'wrong',
    );
  });

  it('@mnemo /remember then /recall answer through the participant handler with the real sidecar', async () => {
    // No chat provider (Copilot) runs in this VS Code, so the chat view cannot send a request; the
    // participant's own handler is called with what the chat view would pass.
    const out: string[] = [];
    const stream = {
      markdown: (v: string | vscode.MarkdownString) => out.push(typeof v === 'string' ? v : v.value),
      button: () => undefined,
      progress: (v: string) => out.push(v),
      reference: () => undefined,
      anchor: () => undefined,
      filetree: () => undefined,
      push: () => undefined,
    } as unknown as vscode.ChatResponseStream;
    const tag = uniqueTag('chat');
    const request = (command: string, prompt: string) =>
      ({
        command,
        prompt,
        references: [],
        toolReferences: [],
        model: undefined,
      }) as unknown as vscode.ChatRequest;
    const context = { history: [] } as unknown as vscode.ChatContext;
    const token = new vscode.CancellationTokenSource().token;
    const r1 = await api.chat.handle(
      request('remember', `The ${tag} staging cluster runs Kubernetes 1.30 on port 6443`),
      context,
      stream,
      token,
    );
    assert.match(out.join('\n'), /Remembered/);
    const id = (r1.metadata as { memoryIds?: string[] }).memoryIds?.[0];
    assert.ok(id, 'the remembered memory id is returned');
    out.length = 0;
    await api.chat.handle(
      request('recall', `${tag} staging cluster Kubernetes version`),
      context,
      stream,
      token,
    );
    assert.match(out.join('\n'), new RegExp(`${tag} staging cluster runs Kubernetes 1\\.30`));
    await api.request(DeleteRequest, { ids: [id] });
  });

  it('sends a terminal session through the durable queue, as a troubleshooting log when a failure is fixed', async () => {
    const terminal = vscode.window.createTerminal({ name: 'mnemo-editor-test' });
    try {
      const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const t0 = Date.now();
      const before = api.terminal.sent;
      api.terminal.add(terminal, {
        command: 'npm test',
        cwd,
        exitCode: 1,
        startedAt: t0,
        endedAt: t0 + 900,
        output: "Error: Cannot find module 'left-pad'",
      });
      api.terminal.add(terminal, {
        command: 'npm test -- --runInBand',
        cwd,
        exitCode: 0,
        startedAt: t0 + 2000,
        endedAt: t0 + 5000,
        output: 'Tests: 12 passed',
      });
      await api.terminal.flush(terminal);
      assert.equal(api.terminal.sent, before + 1, 'one session was sent');
      const sent = api.terminal.lastSent;
      assert.equal(
        sent?.source_type,
        'terminal',
        'the extension records what ran; the sidecar finds the fix',
      );
      assert.equal(sent?.project_id, mainProject());
      assert.deepEqual(
        sent?.messages.map((m) => m.role),
        ['user', 'tool', 'user', 'tool'],
      );
      assert.equal(sent?.messages[0].content, '$ npm test');
      assert.match(sent?.messages[1].content ?? '', /^exit 1 · Error/);
      const { remaining } = await api.request(FlushQueueRequest, { timeout_ms: 60_000 });
      assert.equal(remaining, 0, 'the sidecar processed the queued session');
      const logs = await api.request(ListRequest, {
        project_id: mainProject(),
        source_type: 'troubleshooting_log',
        limit: 10_000,
      });
      assert.ok(
        logs.items.some((m) => m.text.includes('`npm test` failed') && m.text.includes('left-pad')),
        'the fixed failure is stored as a troubleshooting log',
      );
    } finally {
      terminal.dispose();
    }
  });

  /** What the status bar should count: memories in use and pending, in the workspace's projects (Global included). */
  async function expectedCounts(): Promise<{ memories: number; pending: number }> {
    const scope = new Set(api.projects().map((p) => p.projectId));
    const { groups } = await api.request(CountsRequest, {});
    const inScope = groups.filter((g) => scope.has(g.project_id) && IN_USE.includes(g.status));
    return {
      memories: inScope.reduce((n, g) => n + g.count, 0),
      pending: inScope.filter((g) => g.status === 'pending').reduce((n, g) => n + g.count, 0),
    };
  }

  /** Waits until the status bar (not flashing a message) shows exactly these numbers. */
  async function statusBarShows(
    what: string,
    expected: () => Promise<{ memories: number; pending: number }>,
  ): Promise<string> {
    return waitFor(`the status bar to show ${what}`, async () => {
      const item = api.statusBarItem();
      if (api.views.statusBar.flashing) return undefined;
      const { memories, pending } = await expected();
      const want = `Mnemo ${memories}${pending ? ` · ${pending} to review` : ''}`;
      return item.text.endsWith(want) ? item.text : undefined;
    });
  }

  it('the status bar shows the health and the workspace-scoped counts, agreeing with the Review Queue badge', async () => {
    const status = await waitFor('a status from the sidecar', () => api.status());
    const item = api.statusBarItem();
    // One icon: trouble first, else what capture does (recording, paused, off).
    const capture = vscode.workspace.getConfiguration('mnemo.capture');
    const capturing = capture.get('terminal.enabled') === true || capture.get('chat.enabled') === true;
    const calm = !capturing ? '$(database)' : api.views.pause.paused ? '$(debug-pause)' : '$(record)';
    const icon = status.health === 'error' ? '$(error)' : status.health === 'warning' ? '$(warning)' : calm;
    // A success of an earlier test may still flash in the item (5 s); then it shows the health again.
    await waitFor(`the icon for ${status.health} and capture (the item says: ${item.text})`, () =>
      item.text.startsWith(`${icon} Mnemo`),
    );
    const tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : String(item.tooltip);
    assert.notEqual(status.health, 'error', `the test store is reachable: ${status.message}`);
    assert.ok(
      tooltip.includes(status.message.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&')),
      `the tooltip says the health: ${tooltip}`,
    );
    assert.equal(
      typeof item.command === 'object' ? item.command.command : item.command,
      'workbench.view.extension.mnemo',
    );
    await statusBarShows('the current counts', expectedCounts);
    const before = await expectedCounts();

    // A pending memory of this workspace: one more memory, one more pending, in the bar and the badge.
    const id = await remember(
      `Maybe rotate the ${uniqueTag('bar')} TLS certificates monthly.`,
      mainProject(),
      { pending: true },
    );
    await statusBarShows('one more pending memory', async () => ({
      memories: before.memories + 1,
      pending: before.pending + 1,
    }));
    assert.equal(
      api.views.reviewView.badge?.value,
      before.pending + 1,
      'the badge counts the same pending memories',
    );
    assert.match(String(api.statusBarItem().accessibilityInformation?.label), /in this workspace's projects/);

    // A pending memory of a project outside the workspace changes neither number; "Other projects" lists it.
    const outside = `editor-test-${uniqueTag('other')}`;
    await remember(`Perhaps the ${uniqueTag('outside')} cron should run hourly.`, outside, { pending: true });
    const roots = await waitFor('the Other projects node', async () => {
      const r = await api.views.memories.getChildren();
      return r.some((n) => n.kind === 'others') ? r : undefined;
    });
    const others = roots.find((n) => n.kind === 'others');
    assert.ok(others);
    await waitFor('the outside project under Other projects', async () =>
      (await api.views.memories.getChildren(others)).some(
        (n) => n.kind === 'project' && n.projectId === outside,
      ),
    );
    await statusBarShows('the same counts as before the outside memory', async () => ({
      memories: before.memories + 1,
      pending: before.pending + 1,
    }));

    // Confirming it empties the queue again, everywhere.
    await vscode.commands.executeCommand('mnemo.confirmMemory', id);
    await statusBarShows('the pending count back', async () => ({
      memories: before.memories + 1,
      pending: before.pending,
    }));
    assert.equal(api.views.reviewView.badge?.value, before.pending || undefined);
  });
  it('a chat session file appearing in the workspace storage is learned once consented, and shows in the tree with its agent', async () => {
    const projectId = mainProject();
    const storage = api.agents.editor().workspace_storage;
    assert.ok(storage, 'the workspace has a storage folder');
    const dir = path.join(storage, 'chatSessions');
    fs.mkdirSync(dir, { recursive: true });
    const tag = uniqueTag('vitest');
    const sessionId = `${tag}-0000-4000-8000-000000000000`;
    const file = path.join(dir, `${sessionId}.json`);
    const at = Date.now();
    // VS Code's own (pre-1.109) chat session format: one request, its markdown response, complete.
    fs.writeFileSync(
      file,
      JSON.stringify({
        version: 3,
        sessionId,
        creationDate: at,
        requesterUsername: 'dev',
        responderUsername: 'GitHub Copilot',
        initialLocation: 'panel',
        requests: [
          {
            requestId: `request_${tag}`,
            timestamp: at,
            message: {
              text: `We decided the ${tag} service uses a 15000 ms request timeout from now on.`,
              parts: [],
            },
            response: [{ value: `Understood: the ${tag} service timeout is now 15000 ms.` }],
            responseId: `response_${tag}`,
            agent: { id: 'github.copilot.editsAgent', fullName: 'GitHub Copilot' },
          },
        ],
      }),
    );
    const settings = vscode.workspace.getConfiguration('mnemo');
    const before = settings.get<Record<string, boolean>>('capture.sources') ?? {};
    try {
      // The person's consent for VS Code Chat; the sidecar then watches this workspace's chats.
      await settings.update(
        'capture.sources',
        { ...before, vscodeChat: true },
        vscode.ConfigurationTarget.Global,
      );
      const memory = await waitFor(
        'the chat session learned',
        async () =>
          (await api.request(ListRequest, { project_id: projectId, limit: 500 })).items.find(
            (m) => m.text.includes(tag) && m.source_ref.includes('agent:vscode-chat'),
          ),
        90_000,
        500,
      );
      seeded.push(memory.id);
      const node = await waitFor('the memory in the tree', () => findInTree(projectId, memory.id), 30_000);
      const item = api.views.memories.getTreeItem(node);
      assert.match(String(item.description), /VS Code Chat/, 'the tree names the agent it came from');
      // The view reloads its counts when memories are learned (it is not re-shown here).
      await waitFor(
        'the Agent Sessions view to count what was learned',
        async () =>
          ((await api.views.sources.getChildren()).find((n) => n.source.id === 'vscode-chat')?.source
            .captured_messages ?? 0) >= 2,
        15_000,
      );
    } finally {
      await settings.update('capture.sources', before, vscode.ConfigurationTarget.Global);
      fs.rmSync(file, { force: true });
    }
  });
});
