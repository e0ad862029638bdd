import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { parse as ParseToml } from 'smol-toml' with { 'resolution-mode': 'import' };
import { cleanupDataDir, inProcessService, tempDataDir } from '../support/sidecarSession';
import { cli, killChromaServers } from './support';
// smol-toml ships ESM typings with a CommonJS build; require() gets the CommonJS one.
const { parse: parseToml } = require('smol-toml') as { parse: typeof ParseToml };

// Issue 39, item 12, and issue 32 ("Connect an Agent writes where it belongs"), through the real CLI on a
// home folder of its own: what the audit found `mnemo connect` and `promote-to-repo` did to people's files.
const root = tempDataDir('mnemo-rel-connect-');
const dataDir = join(root, 'data');
const home = join(root, 'home');
const project = join(root, 'work', 'plant');
mkdirSync(home, { recursive: true });
mkdirSync(join(project, '.git'), { recursive: true });
writeFileSync(join(project, '.git', 'config'), '[remote "origin"]\n\turl = git@github.com:acme/plant.git\n');
after(() => {
  killChromaServers(dataDir);
  cleanupDataDir(root);
});

const env = { HOME: home, XDG_STATE_HOME: join(home, '.local', 'state'), CODEX_HOME: '' };
/** `mnemo` run in the project folder, as a person would. */
const mnemo = (args: string[]) => cli(dataDir, args, { env, cwd: project });

test('Claude Code: this machine’s paths go to the user’s own configuration, the committed file gets only what is portable', async () => {
  const claudeJson = join(home, '.claude.json');
  writeFileSync(
    claudeJson,
    JSON.stringify({ numStartups: 12, projects: { '/elsewhere': { allowedTools: [] } } }),
  );
  const r = await mnemo(['connect', 'claude-code', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(existsSync(join(project, '.mcp.json')), false, 'nothing written into the repository');
  const user = JSON.parse(readFileSync(claudeJson, 'utf8')) as {
    numStartups: number;
    projects: Record<string, { mcpServers?: Record<string, { command: string; args: string[] }> }>;
  };
  assert.equal(user.numStartups, 12);
  assert.deepEqual(user.projects['/elsewhere'], { allowedTools: [] });
  const entry = user.projects[project]!.mcpServers!.mnemo!;
  assert.equal(entry.command, process.execPath);
  assert.ok(entry.args.includes(dataDir), 'this user’s data folder, in this user’s file');

  const shared = await mnemo(['connect', 'claude-code', '--scope', 'project', '--yes']);
  assert.equal(shared.code, 0, shared.stderr);
  assert.match(shared.stdout, /meant to be committed/);
  const mcpJson = readFileSync(join(project, '.mcp.json'), 'utf8');
  assert.deepEqual(JSON.parse(mcpJson), { mcpServers: { mnemo: { command: 'mnemo', args: ['mcp'] } } });
  for (const local of [home, root, process.execPath, dataDir]) assert.ok(!mcpJson.includes(local), local);
});

test('a symlinked config stays a link; numbers, comments and a BOM survive; the person’s own env is kept', async () => {
  const dotfiles = join(home, 'dotfiles');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  mkdirSync(dotfiles, { recursive: true });
  const real = join(dotfiles, 'cursor-mcp.json');
  const link = join(home, '.cursor', 'mcp.json');
  writeFileSync(
    real,
    '\uFEFF{\n  // my servers\n  "budget": 12345678901234567890,\n  "mcpServers": {\n    "mnemo": { "command": "old", "args": [], "env": { "MNEMO_DATA_DIR": "/team/store", "HTTPS_PROXY": "http://proxy:3128" } }\n  }\n}\n',
  );
  symlinkSync(real, link);
  const r = await mnemo(['connect', 'cursor', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /used the data folder \/team\/store; it will use /, 'the store change is said');
  assert.ok(lstatSync(link).isSymbolicLink(), 'still a link');
  const text = readFileSync(real, 'utf8');
  assert.ok(text.startsWith('\uFEFF{\n  // my servers\n  "budget": 12345678901234567890,'), text);
  const env = (
    JSON.parse(text.slice(1).replace(/\/\/.*\n/, '\n')) as {
      mcpServers: { mnemo: { env: Record<string, string> } };
    }
  ).mcpServers.mnemo.env;
  assert.equal(env.HTTPS_PROXY, 'http://proxy:3128', 'the person’s own env is kept');
  // Undo takes Mnemo's entry out of the file as it is now: a later edit stays.
  writeFileSync(real, readFileSync(real, 'utf8').replace('"budget"', '"later": true,\n  "budget"'));
  const undo = await mnemo(['connect', 'cursor', '--undo', '--yes']);
  assert.equal(undo.code, 0, undo.stderr);
  const after = readFileSync(real, 'utf8');
  assert.match(after, /"later": true/, 'a later edit is not undone');
  assert.doesNotMatch(after, /"mnemo"/);
  assert.ok(lstatSync(link).isSymbolicLink());
});

test('Codex: undo leaves valid TOML and the tables after Mnemo’s; backups are owner-only and outside the project', async () => {
  const codex = join(home, '.codex');
  mkdirSync(codex, { recursive: true });
  const file = join(codex, 'config.toml');
  writeFileSync(file, 'model = "gpt-5"\n\n[[profiles]]\nname = "fast"\n');
  const r = await mnemo(['connect', 'codex', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  // Mnemo's table is now followed by an array of tables the person adds.
  writeFileSync(file, readFileSync(file, 'utf8') + '\n[[profiles]]\nname = "slow"\n');
  const backups = join(home, '.local', 'state', 'mnemo', 'file-backups');
  const ofCodex = readdirSync(backups).filter((f) => f.startsWith('config.toml.'));
  assert.equal(ofCodex.length, 1);
  chmodSync(join(backups, ofCodex[0]!), 0o644); // as an older version left it
  const undo = await mnemo(['connect', 'codex', '--undo', '--yes']);
  assert.equal(undo.code, 0, undo.stderr);
  const t = parseToml(readFileSync(file, 'utf8')) as {
    model: string;
    profiles: { name: string }[];
    mcp_servers?: unknown;
  };
  assert.equal(t.model, 'gpt-5');
  assert.deepEqual(
    t.profiles.map((p) => p.name),
    ['fast', 'slow'],
  );
  assert.equal(t.mcp_servers, undefined);
  assert.equal(statSync(join(backups, ofCodex[0]!)).mode & 0o777, 0o600, 'the backup is owner-only');
  assert.equal(statSync(backups).mode & 0o777, 0o700);
});

test('promote-to-repo: marker strings in a memory, unbalanced markers and a symlinked AGENTS.md', async () => {
  const svc = inProcessService(dataDir);
  try {
    await svc.start();
    for (const text of [
      'Deploys go through the release train every Tuesday at 10:00.',
      'Never paste <!-- mnemo:memories:end --> into docs; it closed the section and --> hid lines.',
    ]) {
      const d = await svc.remember({ text, project_id: 'github.com/acme/plant' });
      assert.ok(d.id);
    }
  } finally {
    await svc.dispose();
  }
  const shared = join(root, 'shared-agents.md');
  writeFileSync(shared, '# Team rules\n\nKeep PRs small.\n');
  symlinkSync(shared, join(project, 'AGENTS.md'));
  const r = await mnemo(['promote-to-repo', '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(join(project, 'AGENTS.md')).isSymbolicLink(), 'the link stays a link');
  const text = readFileSync(shared, 'utf8');
  assert.equal(
    text.split('<!-- mnemo:memories:end -->').length,
    2,
    'one end marker: the memory cannot close the section',
  );
  assert.match(text, /Never paste &lt;!-- mnemo:memories:end --&gt; into docs/);
  assert.match(text, /^# Team rules\n\nKeep PRs small\.\n/);
  assert.deepEqual(
    readdirSync(project).filter((f) => /backup|\.bak$|\.tmp$/.test(f)),
    [],
    'no backup left in the repository',
  );
  // A begin marker without its end: refused, the person's lines untouched.
  const broken =
    '# Rules\n\n<!-- mnemo:memories:begin (managed by Mnemo: promote memories to update; edits inside are replaced) -->\n- mine\n\n## My section\n\n- keep me\n';
  writeFileSync(shared, broken);
  const refused = await mnemo(['promote-to-repo', '--yes']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /section markers out of order/);
  assert.equal(readFileSync(shared, 'utf8'), broken);
});
