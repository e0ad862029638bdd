/**
 * Issue 32's "done when", through the real sidecar, Chroma and model: a machine with transcripts of every
 * agent Mnemo reads, for the two folders of a workspace. The consent notification's "Learn from All" sends
 * one `mnemo/sources/capture` for the window's folders and every agent it listed (src/capture/agents.ts);
 * that one request fills both projects, each memory and quoted turn names the agent it came from, recall
 * in one folder never answers from the other, and when the files change again (rewritten, touched, a
 * session resumed with its earlier lines) nothing is learned twice.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { projectIdFor } from '../../sidecar/shared/project';
import * as P from '../../sidecar/protocol';
import { CAPTURE_SOURCES, type CaptureSourceId } from '../../sidecar/shared/agentSources';
import { CC_DECISION, writeClaudeCode } from '../fixtures/capture/claudeCode';
import { CL_DECISION, writeCline, writeRoo } from '../fixtures/capture/clineTasks';
import { CX_DECISION, writeCodex } from '../fixtures/capture/codex';
import { CP_DECISION, writeCopilotCli } from '../fixtures/capture/copilotCli';
import { CU_DECISION, writeCursor } from '../fixtures/capture/cursor';
import { GM_DECISION, writeGemini } from '../fixtures/capture/geminiCli';
import { VS_CHINESE, writeVscodeChat } from '../fixtures/capture/vscodeChat';
import {
  cleanupDataDir,
  inProcessService,
  SidecarSession,
  tempDataDir,
  testConfig,
} from '../support/sidecarSession';

/** A distinctive piece of each agent's decision (the fixtures' own words), by the folder it was said in. */
const WEB: [CaptureSourceId, string][] = [
  ['claude-code', CC_DECISION.slice(0, 12)],
  ['vscode-chat', VS_CHINESE.slice(0, 10)],
  ['gemini-cli', GM_DECISION.slice(0, 10)],
  ['cline', CL_DECISION.slice(0, 10)],
];
const API: [CaptureSourceId, string][] = [
  ['codex', CX_DECISION.slice(0, 10)],
  ['copilot-cli', CP_DECISION.slice(0, 10)],
  ['cursor', CU_DECISION.slice(0, 6)],
  ['roo-code', CL_DECISION.slice(0, 10)],
];

describe('every agent, two workspace folders, one consent', () => {
  const dataDir = tempDataDir();
  const home = tempDataDir('mnemo-home-');
  const web = join(home, 'src', 'web');
  const api = join(home, 'src', 'api');
  mkdirSync(web, { recursive: true });
  mkdirSync(api, { recursive: true });
  const files = [
    writeClaudeCode(home, web).session,
    ...Object.values(writeVscodeChat(join(home, '.config', 'Code', 'User'), web)).filter((f) =>
      f.endsWith('.json'),
    ),
    writeGemini(home, web).session,
    writeCline(home, web).file,
    writeCodex(home, api).session,
    writeCopilotCli(home, api).events,
    writeRoo(home, api).file,
  ];
  writeCursor(join(home, '.config', 'Cursor', 'User'), api);
  const projects = { web: projectIdFor(web), api: projectIdFor(api) };
  let s: SidecarSession;

  before(async () => {
    s = await SidecarSession.start(testConfig(dataDir), {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
    });
  });
  after(async () => {
    await s?.stop();
    cleanupDataDir(dataDir);
    rmSync(home, { recursive: true, force: true });
  });

  /** What a project holds, memories and quoted turns alike: text and the agent its refs name. */
  async function heard(project: string): Promise<{ text: string; refs: string[] }[]> {
    const memories = await s.request(P.ListRequest, { project_id: project, limit: 1000 });
    return memories.items.map((m) => ({ text: m.text, refs: m.source_ref }));
  }

  test('the consent question lists every agent with sessions here, nothing read yet', async () => {
    const { sources } = await s.request(P.SourcesListRequest, { folders: [web, api] });
    for (const id of CAPTURE_SOURCES) {
      const src = sources.find((x) => x.id === id);
      assert.ok(src?.detected && src.sessions > 0, `${id}: ${JSON.stringify(src)}`);
      assert.equal(src.captured_messages, 0, id);
    }
  });

  test('one capture of every agent fills both projects, each memory naming its agent', async () => {
    const r = await s.request(P.SourcesCaptureRequest, {
      folders: [web, api],
      sources: [...CAPTURE_SOURCES],
    });
    assert.deepEqual(r.sources.map((x) => x.id).sort(), [...CAPTURE_SOURCES].sort());
    for (const x of r.sources) {
      assert.ok(x.messages > 0, `${x.id} learned nothing: ${JSON.stringify(x)}`);
      // The fixtures hold a junk line and a record type from a newer agent: skipped and said, never a whole file.
      assert.ok(
        x.problems.every((p) => /\d+ records? skipped \(/.test(p)),
        `${x.id}: ${x.problems.join(' | ')}`,
      );
    }
    for (const [project, expected, others] of [
      [projects.web, WEB, API],
      [projects.api, API, WEB],
    ] as const) {
      const items = await heard(project);
      for (const [agent, words] of expected) {
        assert.ok(
          items.some((m) => m.text.includes(words) && m.refs.includes(`agent:${agent}`)),
          `${agent}'s "${words}" in ${project}:\n${items.map((m) => `${m.text} ${m.refs.join(',')}`).join('\n')}`,
        );
      }
      for (const [agent] of others)
        if (!expected.some(([a]) => a === agent))
          assert.ok(!items.some((m) => m.refs.includes(`agent:${agent}`)), `${agent} leaked into ${project}`);
    }
  });

  test('recall answers from the folder asked, with the agent and speaker, never from the other folder', async () => {
    const inWeb = await s.request(P.RecallRequest, {
      query: '支付服务的超时时间是多少',
      project_ids: [projects.web],
      mark_used: false,
    });
    assert.ok(
      inWeb.items.some(
        (i) => i.memory.source_ref.includes('agent:claude-code') && /30 秒/.test(i.memory.text),
      ),
      inWeb.block,
    );
    assert.match(inWeb.block, /Claude Code/);
    const crossed = await s.request(P.RecallRequest, {
      query: '数据库迁移用什么工具',
      project_ids: [projects.web],
      mark_used: false,
    });
    assert.ok(
      !crossed.items.some((i) => i.memory.project_id === projects.api),
      `the api folder's Codex decision answered in web: ${crossed.block}`,
    );
    const inApi = await s.request(P.RecallRequest, {
      query: '数据库迁移用什么工具',
      project_ids: [projects.api],
      mark_used: false,
    });
    assert.ok(
      inApi.items.some((i) => i.memory.source_ref.includes('agent:codex') && /sqitch/.test(i.memory.text)),
      inApi.block,
    );
    assert.match(inApi.block, /Codex/);
  });

  test('when the files change again — rewritten, touched, a session resumed with its old lines — nothing is learned twice', async () => {
    const before_ = [...(await heard(projects.web)), ...(await heard(projects.api))].length;
    for (const f of files) {
      const bytes = readFileSync(f);
      rmSync(f);
      writeFileSync(f, bytes);
      const t = Date.now() / 1000 - 3600;
      utimesSync(f, t, t);
    }
    // Claude Code resumes a session by copying its earlier lines into a new file.
    const resumed = join(files[0]!, '..', 'f0f0f0f0-0000-4000-8000-00000000abcd.jsonl');
    writeFileSync(resumed, readFileSync(files[0]!));
    utimesSync(resumed, Date.now() / 1000 - 3600, Date.now() / 1000 - 3600);
    const r = await s.request(P.SourcesCaptureRequest, {
      folders: [web, api],
      sources: [...CAPTURE_SOURCES],
    });
    for (const x of r.sources) assert.equal(x.messages, 0, `${x.id} learned again: ${JSON.stringify(x)}`);
    const after_ = [...(await heard(projects.web)), ...(await heard(projects.api))].length;
    assert.equal(after_, before_, 'no memory added');
  });

  test('every turn is kept once, with its speaker', async () => {
    await s.stop();
    const svc = inProcessService(dataDir);
    await svc.start();
    try {
      for (const project of [projects.web, projects.api]) {
        const turns = await svc.episodes.find({ project_id: project });
        const seen = new Map<string, number>();
        for (const t of turns) {
          const key = `${t.session_id}\u0000${t.message_id}\u0000${t.occurrence ?? 0}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
        assert.deepEqual(
          [...seen].filter(([, n]) => n > 1),
          [],
          `${project}: a turn kept twice`,
        );
        assert.ok(turns.length > 10, `${project}: ${turns.length} turns`);
        assert.ok(
          turns.every((t) => t.speaker),
          'every turn says who spoke',
        );
      }
      const decisions = (await svc.episodes.find({ project_id: projects.web })).filter((e) =>
        e.text.includes(CC_DECISION),
      );
      assert.equal(
        decisions.length,
        1,
        'the resumed copy of the session is not a second source of the decision',
      );
    } finally {
      await svc.dispose();
    }
  });
});
