/**
 * The config writers of `mnemo connect` / "Connect an Agent…": each agent's documented file and dialect in
 * each scope, other entries kept, idempotent, a broken file never overwritten, undo of Mnemo's part only.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { parse as ParseToml } from 'smol-toml' with { 'resolution-mode': 'import' };
// smol-toml ships ESM typings with a CommonJS build; require() gets the CommonJS one.
const { parse: parseToml } = require('smol-toml') as { parse: typeof ParseToml };
import {
  AGENTS,
  PORTABLE_LAUNCH,
  POINTER_BEGIN,
  POINTER_END,
  POINTER_TEXT,
  configTarget,
  planConnect,
  planDisconnect,
  planPointer,
  removeFromConfig,
  renderConfig,
  scopesOf,
  type ConfigTarget,
  type McpLaunch,
} from '../../sidecar/shared/connect';
import {
  applyChange,
  applyUndo,
  backupPath,
  editJson,
  planUndo,
  removeSection,
  upsertSection,
} from '../../sidecar/shared/fileChange';
import { mcpLaunchFor } from '../../src/mcpLaunch';

const launch: McpLaunch = {
  command: '/usr/bin/node',
  args: ['/opt/mnemo/dist/cli.js', 'mcp', '--data-dir', '/home/u/.mnemo data'],
  env: { MNEMO_EMBEDDING_MODEL: 'Xenova/all-MiniLM-L6-v2' },
};
const ctx = { projectDir: '/w/repo', home: '/home/u', env: {}, platform: 'linux' as const };
const target = (agent: (typeof AGENTS)[number], scope?: 'local' | 'user' | 'project'): ConfigTarget =>
  configTarget(agent, ctx, scope);
const render = (t: ConfigTarget, existing: string | undefined, l = launch): string =>
  renderConfig(t, existing, l).text;

describe('connect: where each agent reads its MCP servers', () => {
  test('documented locations, a per-user scope first', () => {
    assert.deepEqual(scopesOf('claude-code'), ['local', 'user', 'project']);
    assert.deepEqual(scopesOf('cursor'), ['user', 'project']);
    assert.deepEqual(target('claude-code'), {
      agent: 'claude-code',
      scope: 'local',
      file: '/home/u/.claude.json',
      format: 'json',
      serversPath: ['projects', '/w/repo', 'mcpServers'],
    });
    assert.deepEqual(target('claude-code', 'user').serversPath, ['mcpServers']);
    assert.equal(target('claude-code', 'project').file, '/w/repo/.mcp.json');
    assert.equal(target('cursor').file, '/home/u/.cursor/mcp.json');
    assert.equal(target('cursor', 'project').file, '/w/repo/.cursor/mcp.json');
    assert.equal(target('codex').file, '/home/u/.codex/config.toml');
    assert.equal(configTarget('codex', { ...ctx, env: { CODEX_HOME: '/c' } }).file, '/c/config.toml');
    assert.equal(target('windsurf').file, '/home/u/.codeium/windsurf/mcp_config.json');
    assert.equal(target('copilot-cli').file, '/home/u/.copilot/mcp-config.json');
    assert.equal(
      configTarget('copilot-cli', { ...ctx, env: { COPILOT_HOME: '/cp' } }).file,
      '/cp/mcp-config.json',
    );
    assert.equal(
      target('cline').file,
      '/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    );
    assert.equal(
      configTarget('cline', { ...ctx, platform: 'darwin' }).file,
      '/home/u/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    );
    assert.equal(
      configTarget('cline', { ...ctx, vscodeUserDir: '/x/User' }).file,
      '/x/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    );
    assert.throws(() => target('codex', 'project'), /Codex keeps its MCP servers in the user scope/);
  });
});

describe('connect: rendering', () => {
  test('every agent in every scope: a valid file holding Mnemo, rendering twice changes nothing', () => {
    for (const agent of AGENTS)
      for (const scope of scopesOf(agent)) {
        const t = target(agent, scope);
        const once = render(t, undefined);
        assert.equal(render(t, once), once, `${agent} ${scope} is idempotent`);
        if (agent === 'codex') {
          const toml = JSON.parse(JSON.stringify(parseToml(once))) as {
            mcp_servers: { mnemo: { command: string; args: string[]; env: Record<string, string> } };
          };
          assert.deepEqual(toml.mcp_servers.mnemo, {
            command: launch.command,
            args: launch.args,
            env: launch.env,
          });
          continue;
        }
        let node = JSON.parse(once) as Record<string, unknown>;
        for (const k of t.serversPath) node = node[k] as Record<string, unknown>;
        const entry = node.mnemo as Record<string, unknown>;
        assert.equal(entry.command, launch.command);
        assert.deepEqual(entry.args, launch.args);
        assert.deepEqual(entry.env, launch.env);
      }
  });

  test('a file meant to be committed gets the portable launch only, with a note', () => {
    for (const agent of ['claude-code', 'cursor'] as const) {
      const plan = planConnect(
        configTarget(agent, { projectDir: mkdtempSync(join(tmpdir(), 'mnemo-p-')) }, 'project'),
        launch,
      );
      const entry = (JSON.parse(plan.after!) as { mcpServers: { mnemo: unknown } }).mcpServers.mnemo;
      assert.deepEqual(entry, { command: PORTABLE_LAUNCH.command, args: PORTABLE_LAUNCH.args });
      assert.ok(
        !plan.after!.includes('/opt/mnemo') && !plan.after!.includes('/home/u'),
        'no path of this machine',
      );
      assert.match(plan.notes!.join(' '), /meant to be committed/);
    }
  });

  test('agent dialects: Cline disabled/autoApprove, Copilot CLI type local with tools', () => {
    const cline = JSON.parse(render(target('cline'), undefined)) as {
      mcpServers: { mnemo: Record<string, unknown> };
    };
    assert.equal(cline.mcpServers.mnemo.disabled, false);
    assert.deepEqual(cline.mcpServers.mnemo.autoApprove, []);
    const cp = JSON.parse(render(target('copilot-cli'), undefined)) as {
      mcpServers: { mnemo: Record<string, unknown> };
    };
    assert.equal(cp.mcpServers.mnemo.type, 'local');
    assert.deepEqual(cp.mcpServers.mnemo.tools, ['*']);
  });

  test('JSON: other servers and keys kept; a changed launch replaces only what Mnemo sets', () => {
    const t = target('cursor');
    const existing = JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' } }, other: 1 });
    const out = JSON.parse(render(t, existing)) as {
      mcpServers: Record<string, { command: string }>;
      other: number;
    };
    assert.equal(out.other, 1);
    assert.equal(out.mcpServers.github!.command, 'gh-mcp');
    const moved = JSON.parse(
      render(t, JSON.stringify(out), { ...launch, command: '/new/node' }),
    ) as typeof out;
    assert.equal(moved.mcpServers.mnemo!.command, '/new/node');
    assert.equal(Object.keys(moved.mcpServers).length, 2);
  });

  test('TOML: comments and other tables kept; an old Mnemo table (and its env sub-table) replaced in place', () => {
    const existing = [
      '# my codex config',
      'model = "gpt-5"',
      '',
      '[mcp_servers.mnemo]',
      'command = "/old/node"',
      'args = ["old.js"]',
      '',
      '[mcp_servers.mnemo.env]',
      'X = "1"',
      '',
      '[mcp_servers.github]',
      'command = "gh"',
      '',
    ].join('\n');
    const out = render(target('codex'), existing);
    assert.match(out, /^# my codex config\nmodel = "gpt-5"\n/);
    const t = parseToml(out) as {
      model: string;
      mcp_servers: Record<string, { command: string; env?: Record<string, string> }>;
    };
    assert.equal(t.model, 'gpt-5');
    assert.equal(t.mcp_servers.github!.command, 'gh');
    assert.equal(t.mcp_servers.mnemo!.command, '/usr/bin/node');
    assert.deepEqual(
      { ...t.mcp_servers.mnemo!.env },
      { X: '1', ...launch.env },
      'the person’s own env is kept',
    );
    assert.ok(
      out.indexOf('[mcp_servers.mnemo]') < out.indexOf('[mcp_servers.github]'),
      'replaced where it was',
    );
    assert.equal(render(target('codex'), out), out);
  });

  test('a file that does not parse is never overwritten: one clear sentence', () => {
    assert.throws(
      () => render({ ...target('windsurf'), file: '/f/mcp_config.json' }, '{ "mcpServers": '),
      /\/f\/mcp_config\.json is not valid JSON .*Mnemo did not change it\./,
    );
    assert.throws(
      () => render({ ...target('codex'), file: '/f/config.toml' }, 'model = '),
      /\/f\/config\.toml is not valid TOML/,
    );
    assert.throws(
      () => render({ ...target('cursor'), file: 'x' }, '{"mcpServers": []}'),
      /"mcpServers" in x is not an object/,
    );
  });

  test('removing Mnemo keeps the rest; nothing left means no file (never the user configuration of Claude Code)', () => {
    for (const agent of AGENTS)
      for (const scope of scopesOf(agent)) {
        const t = target(agent, scope);
        const left = removeFromConfig(t, render(t, undefined));
        if (t.serversPath.length > 1)
          assert.ok(left !== undefined && !left.includes('"mnemo"'), `${agent} ${scope}`);
        else assert.equal(left, undefined, `${agent} ${scope}`);
      }
    const t = target('windsurf');
    const both = render(t, JSON.stringify({ mcpServers: { a: { command: 'a' } } }));
    assert.deepEqual(JSON.parse(removeFromConfig(t, both)!), { mcpServers: { a: { command: 'a' } } });
    const toml = render(target('codex'), 'model = "x"\n');
    assert.deepEqual({ ...parseToml(removeFromConfig(target('codex'), toml)!) }, { model: 'x' });
  });

  test('editJson changes one value and keeps every other byte', () => {
    const text = '\uFEFF{\n    // mine\n    "n": 12345678901234567890,\n    "a": [1, 2],\n}\n';
    const out = editJson(text, ['mcpServers', 'mnemo'], { command: 'x' });
    assert.ok(out.startsWith('\uFEFF{\n    // mine\n    "n": 12345678901234567890,'), out);
    assert.match(out, /\n {4}"mcpServers": \{\n {8}"mnemo": \{\n {12}"command": "x"/);
  });
});

describe('connect: the instruction-file pointer', () => {
  test('appended once, replaced in place, removable; markers out of order are refused', () => {
    const doc = '# Repo\n\nBuild with make.\n';
    const once = upsertSection(doc, POINTER_BEGIN, POINTER_END, POINTER_TEXT);
    assert.ok(once.startsWith(doc.trimEnd()));
    assert.match(once, /call the `recall` tool/);
    assert.match(once, /call `remember`/);
    assert.equal(upsertSection(once, POINTER_BEGIN, POINTER_END, POINTER_TEXT), once);
    const edited = once + '\n## Later section\n';
    assert.equal(
      upsertSection(edited, POINTER_BEGIN, POINTER_END, POINTER_TEXT),
      edited,
      'kept in place, text after it untouched',
    );
    assert.equal(removeSection(once, POINTER_BEGIN, POINTER_END), doc);
    assert.equal(
      removeSection(
        upsertSection(undefined, POINTER_BEGIN, POINTER_END, POINTER_TEXT),
        POINTER_BEGIN,
        POINTER_END,
      ),
      undefined,
    );
    for (const bad of [
      `${doc}${POINTER_BEGIN}\nmine\n`,
      `${POINTER_END}\n${doc}${POINTER_BEGIN}\n`,
      `${once}\n${POINTER_BEGIN}\n`,
    ])
      assert.throws(
        () => upsertSection(bad, POINTER_BEGIN, POINTER_END, POINTER_TEXT, 'CLAUDE.md'),
        /CLAUDE\.md has Mnemo's section markers out of order/,
      );
  });
});

describe('connect: writing with a diff, a backup and undo', () => {
  test('plan shows a diff, applying twice writes once, undo takes Mnemo’s entry out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mnemo-connect-'));
    const state = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = join(dir, 'state');
    try {
      const t = configTarget('cursor', { projectDir: dir }, 'project');
      mkdirSync(join(dir, '.cursor'));
      const original = JSON.stringify({ mcpServers: { github: { command: 'gh' } } }, null, 2) + '\n';
      writeFileSync(t.file, original);
      const plan = planConnect(t, launch);
      assert.ok(plan.changed);
      assert.match(plan.diff, /\+\s+"mnemo": \{/);
      assert.equal(readFileSync(t.file, 'utf8'), original, 'planning writes nothing');
      applyChange(plan);
      assert.equal(readFileSync(backupPath(t.file), 'utf8'), original, 'the previous file is kept');
      assert.ok(
        backupPath(t.file).startsWith(join(dir, 'state', 'mnemo', 'file-backups')),
        'outside the repository',
      );
      const again = planConnect(t, launch);
      assert.equal(again.changed, false);
      assert.equal(again.diff, '');
      applyUndo(planDisconnect(t));
      assert.deepEqual(JSON.parse(readFileSync(t.file, 'utf8')), JSON.parse(original));

      // A file Mnemo created: undo removes it.
      const pointer = planPointer('claude-code', dir);
      assert.equal(pointer.before, undefined);
      applyChange(pointer);
      assert.match(readFileSync(join(dir, 'CLAUDE.md'), 'utf8'), /mnemo:pointer:begin/);
      applyUndo(planUndo(join(dir, 'CLAUDE.md'), (x) => removeSection(x, POINTER_BEGIN, POINTER_END)));
      assert.equal(existsSync(join(dir, 'CLAUDE.md')), false);
    } finally {
      if (state === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = state;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the extension’s launch of the MCP server', () => {
  test('the editor runtime as Node, the bundled CLI on the extension’s data folder, non-secret settings only', () => {
    const l = mcpLaunchFor({
      execPath: '/usr/share/code/code',
      extensionPath: '/home/u/.vscode/extensions/mnemo.mnemo-0.1.0',
      options: {
        dataDir: '/home/u/.config/Code/User/globalStorage/mnemo.mnemo',
        user: 'u@h',
        chromaToken: 'secret-token',
        embedding: { provider: 'openai', model: 'text-embedding-3-small', apiKey: 'sk-secret' },
      },
    });
    assert.equal(l.command, '/usr/share/code/code');
    assert.deepEqual(l.args, [
      '/home/u/.vscode/extensions/mnemo.mnemo-0.1.0/dist/cli.js',
      'mcp',
      '--data-dir',
      '/home/u/.config/Code/User/globalStorage/mnemo.mnemo',
    ]);
    assert.deepEqual(l.env, {
      ELECTRON_RUN_AS_NODE: '1',
      MNEMO_EMBEDDING_PROVIDER: 'openai',
      MNEMO_EMBEDDING_MODEL: 'text-embedding-3-small',
      MNEMO_USER: 'u@h',
    });
    assert.ok(!JSON.stringify(l).includes('secret'), 'no secret reaches an agent config');
  });
});
