/**
 * The config writers of `mnemo connect` / "Connect an Agent…": each agent's documented file and dialect,
 * other entries kept, idempotent, a broken file never overwritten, and undo back to the previous file.
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
  POINTER_BEGIN,
  POINTER_END,
  POINTER_TEXT,
  applyChange,
  applyUndo,
  backupPath,
  configPath,
  planConnect,
  planPointer,
  planUndo,
  removeFromConfig,
  removeSection,
  renderConfig,
  upsertSection,
  type McpLaunch,
} from '../../sidecar/mcp/connect';
import { mcpLaunchFor } from '../../src/mcpLaunch';

const launch: McpLaunch = {
  command: '/usr/bin/node',
  args: ['/opt/mnemo/dist/cli.js', 'mcp', '--data-dir', '/home/u/.mnemo data'],
  env: { MNEMO_EMBEDDING_MODEL: 'Xenova/all-MiniLM-L6-v2' },
};

describe('connect: where each agent reads its MCP servers', () => {
  const ctx = { projectDir: '/w/repo', home: '/home/u', env: {}, platform: 'linux' as const };
  test('documented locations', () => {
    assert.equal(configPath('claude-code', ctx), '/w/repo/.mcp.json');
    assert.equal(configPath('cursor', ctx), '/w/repo/.cursor/mcp.json');
    assert.equal(configPath('codex', ctx), '/home/u/.codex/config.toml');
    assert.equal(configPath('codex', { ...ctx, env: { CODEX_HOME: '/c' } }), '/c/config.toml');
    assert.equal(configPath('windsurf', ctx), '/home/u/.codeium/windsurf/mcp_config.json');
    assert.equal(configPath('copilot-cli', ctx), '/home/u/.copilot/mcp-config.json');
    assert.equal(configPath('copilot-cli', { ...ctx, env: { COPILOT_HOME: '/cp' } }), '/cp/mcp-config.json');
    assert.equal(
      configPath('cline', ctx),
      '/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    );
    assert.equal(
      configPath('cline', { ...ctx, platform: 'darwin' }),
      '/home/u/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    );
    assert.equal(
      configPath('cline', { ...ctx, vscodeUserDir: '/x/User' }),
      '/x/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    );
  });
});

describe('connect: rendering', () => {
  test('every agent: a valid file holding Mnemo, rendering twice changes nothing', () => {
    for (const agent of AGENTS) {
      const once = renderConfig(agent, undefined, launch);
      assert.equal(renderConfig(agent, once, launch), once, `${agent} is idempotent`);
      if (agent === 'codex') {
        const t = JSON.parse(JSON.stringify(parseToml(once))) as {
          mcp_servers: { mnemo: { command: string; args: string[]; env: Record<string, string> } };
        };
        assert.deepEqual(t.mcp_servers.mnemo, {
          command: launch.command,
          args: launch.args,
          env: launch.env,
        });
      } else {
        const j = JSON.parse(once) as { mcpServers: { mnemo: Record<string, unknown> } };
        assert.equal(j.mcpServers.mnemo.command, launch.command);
        assert.deepEqual(j.mcpServers.mnemo.args, launch.args);
        assert.deepEqual(j.mcpServers.mnemo.env, launch.env);
      }
    }
  });

  test('agent dialects: Cline disabled/autoApprove, Copilot CLI type local with tools', () => {
    const cline = JSON.parse(renderConfig('cline', undefined, launch)) as {
      mcpServers: { mnemo: Record<string, unknown> };
    };
    assert.equal(cline.mcpServers.mnemo.disabled, false);
    assert.deepEqual(cline.mcpServers.mnemo.autoApprove, []);
    const cp = JSON.parse(renderConfig('copilot-cli', undefined, launch)) as {
      mcpServers: { mnemo: Record<string, unknown> };
    };
    assert.equal(cp.mcpServers.mnemo.type, 'local');
    assert.deepEqual(cp.mcpServers.mnemo.tools, ['*']);
  });

  test('JSON: other servers and keys kept; a changed launch replaces only Mnemo', () => {
    const existing = JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' } }, other: 1 });
    const out = JSON.parse(renderConfig('cursor', existing, launch)) as {
      mcpServers: Record<string, { command: string }>;
      other: number;
    };
    assert.equal(out.other, 1);
    assert.equal(out.mcpServers.github!.command, 'gh-mcp');
    const moved = JSON.parse(
      renderConfig('cursor', JSON.stringify(out), { ...launch, command: '/new/node' }),
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
    const out = renderConfig('codex', existing, launch);
    assert.match(out, /^# my codex config\nmodel = "gpt-5"\n/);
    const t = parseToml(out) as {
      model: string;
      mcp_servers: Record<string, { command: string; env?: Record<string, string> }>;
    };
    assert.equal(t.model, 'gpt-5');
    assert.equal(t.mcp_servers.github!.command, 'gh');
    assert.equal(t.mcp_servers.mnemo!.command, '/usr/bin/node');
    assert.deepEqual({ ...t.mcp_servers.mnemo!.env }, launch.env);
    assert.ok(
      out.indexOf('[mcp_servers.mnemo]') < out.indexOf('[mcp_servers.github]'),
      'replaced where it was',
    );
    assert.equal(renderConfig('codex', out, launch), out);
  });

  test('a file that does not parse is never overwritten: one clear sentence', () => {
    assert.throws(
      () => renderConfig('windsurf', '{ "mcpServers": ', launch, '/f/mcp_config.json'),
      /\/f\/mcp_config\.json is not valid JSON .*Mnemo did not change it\./,
    );
    assert.throws(
      () => renderConfig('codex', 'model = ', launch, '/f/config.toml'),
      /\/f\/config\.toml is not valid TOML/,
    );
    assert.throws(
      () => renderConfig('cursor', '{"mcpServers": []}', launch, 'x'),
      /"mcpServers" in x is not an object/,
    );
  });

  test('removing Mnemo keeps the rest; nothing left means no file', () => {
    for (const agent of AGENTS)
      assert.equal(removeFromConfig(agent, renderConfig(agent, undefined, launch)), undefined, agent);
    const both = renderConfig('windsurf', JSON.stringify({ mcpServers: { a: { command: 'a' } } }), launch);
    assert.deepEqual(JSON.parse(removeFromConfig('windsurf', both)!), {
      mcpServers: { a: { command: 'a' } },
    });
    const toml = renderConfig('codex', 'model = "x"\n', launch);
    assert.deepEqual({ ...parseToml(removeFromConfig('codex', toml)!) }, { model: 'x' });
  });
});

describe('connect: the instruction-file pointer', () => {
  test('appended once, replaced in place, removable', () => {
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
  });
});

describe('connect: writing with a diff, a backup and undo', () => {
  test('plan shows a diff, applying twice writes once, undo restores the previous file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mnemo-connect-'));
    try {
      const file = join(dir, '.cursor', 'mcp.json');
      mkdirSync(join(dir, '.cursor'));
      const original = JSON.stringify({ mcpServers: { github: { command: 'gh' } } }, null, 2) + '\n';
      writeFileSync(file, original);
      const plan = planConnect('cursor', launch, { projectDir: dir });
      assert.ok(plan.changed);
      assert.match(plan.diff, /\+\s+"mnemo": \{/);
      assert.equal(readFileSync(file, 'utf8'), original, 'planning writes nothing');
      applyChange(plan);
      assert.equal(readFileSync(backupPath(file), 'utf8'), original, 'the previous file is kept');
      const again = planConnect('cursor', launch, { projectDir: dir });
      assert.equal(again.changed, false);
      assert.equal(again.diff, '');
      const undo = planUndo(file, (t) => removeFromConfig('cursor', t));
      assert.ok(undo.restore);
      applyUndo(undo);
      assert.equal(readFileSync(file, 'utf8'), original);
      assert.equal(existsSync(backupPath(file)), false);

      // A file Mnemo created: undo removes it.
      const pointer = planPointer('claude-code', dir);
      assert.equal(pointer.before, undefined);
      applyChange(pointer);
      assert.match(readFileSync(join(dir, 'CLAUDE.md'), 'utf8'), /mnemo:pointer:begin/);
      const u = planUndo(join(dir, 'CLAUDE.md'), (t) => removeSection(t, POINTER_BEGIN, POINTER_END));
      applyUndo(u);
      assert.equal(existsSync(join(dir, 'CLAUDE.md')), false);
    } finally {
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
