/**
 * Capture from the command line and from an agent's hook, with the real CLI, store and model: `mnemo
 * sources` lists what it found, `mnemo capture` without --yes reads nothing, with --yes learns; `mnemo hooks
 * claude-code` writes the hook (a diff first) and the hook command Claude Code would run returns at once
 * while the session is learned in the background; the undo removes it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { projectIdFor } from '../../sidecar/shared/project';
import { backdate, claudeSlug, otherFolderLines, writeClaudeCode } from '../fixtures/capture/claudeCode';
import {
  CLI_JS,
  TEST_MODEL,
  cleanupDataDir,
  tempDataDir,
  testModelPath,
  waitFor,
} from '../support/sidecarSession';

let root: string;
let home: string;
let shop: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;

function mnemo(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(CLI_JS, args, { cwd: shop, env, input, encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

before(() => {
  root = tempDataDir('mnemo-capture-cli-');
  home = join(root, 'home');
  shop = join(home, 'src', 'shop');
  dataDir = join(root, 'data');
  mkdirSync(shop, { recursive: true });
  writeClaudeCode(home, shop);
  env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    MNEMO_DATA_DIR: dataDir,
    MNEMO_EMBEDDING_MODEL: TEST_MODEL,
    MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
  };
  delete env.CLAUDE_CONFIG_DIR;
});
after(() => cleanupDataDir(root));

test('mnemo sources lists the agents found here; mnemo capture without --yes reads nothing', () => {
  const s = mnemo(['sources']);
  assert.equal(s.status, 0, s.stderr);
  assert.match(s.stdout, /Claude Code\s+3 sessions here, 0 in other folders; never asked/);
  assert.match(s.stdout, /Codex\s+not found/);
  const dry = mnemo(['capture']);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /Would read 3 Claude Code session\(s\)/);
  assert.match(dry.stdout, /Nothing was read; add --yes/);
  assert.ok(!existsSync(join(dataDir, 'capture', 'seen')), 'no message was read');
});

test('mnemo capture --yes learns and prints one line per agent', () => {
  const r = mnemo(['capture', '--yes']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Claude Code: 3 sessions, \d+ messages → \d+ stored/m);
  const list = mnemo(['list', '--project', projectIdFor(shop), '--json']);
  assert.ok(
    (JSON.parse(list.stdout) as { items: { text: string }[] }).items.some((m) => m.text.includes('30 秒')),
  );
  assert.match(mnemo(['capture', '--yes']).stdout, /Claude Code: 0 sessions, 0 messages/);
});

test('the Claude Code hook: written after a diff, returns at once, the session is learned in the background, undone', async () => {
  const dry = mnemo(['hooks', 'claude-code']);
  assert.match(dry.stdout, /\+\+\+ .*settings\.json/);
  assert.match(dry.stdout, /Nothing was written; run again with --yes/);
  const w = mnemo(['hooks', 'claude-code', '--yes']);
  assert.equal(w.status, 0, w.stderr);
  const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
  const command = settings.hooks.SessionEnd[0].hooks[0].command as string;
  assert.match(command, /capture --hook claude-code/);
  assert.equal(settings.hooks.PreCompact[0].hooks[0].command, command);

  // A new session ends: Claude Code runs the hook through a shell with its JSON on stdin.
  const transcript = join(
    home,
    '.claude',
    'projects',
    claudeSlug(shop),
    'b1b2b3b4-0000-4000-8000-000000000001.jsonl',
  );
  writeFileSync(transcript, otherFolderLines(shop).join('\n') + '\n');
  backdate(transcript);
  const started = Date.now();
  const hook = spawn('sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  hook.stdin.end(
    JSON.stringify({
      session_id: 'b1',
      transcript_path: transcript,
      cwd: shop,
      hook_event_name: 'SessionEnd',
      reason: 'prompt_input_exit',
    }),
  );
  const code = await new Promise<number | null>((r) => hook.once('exit', r));
  const took = Date.now() - started;
  assert.equal(code, 0);
  assert.ok(took < 5_000, `the hook returned after ${took} ms`);
  await waitFor(
    'the hook request learned in the background',
    () => {
      const dir = join(dataDir, 'capture', 'requests');
      if (readdirSync(dir).length) return false;
      const list = mnemo(['list', '--project', projectIdFor(shop), '--json']);
      return (JSON.parse(list.stdout) as { items: { text: string }[] }).items.some((m) =>
        m.text.includes('pnpm'),
      );
    },
    180_000,
  );
  const undo = mnemo(['hooks', 'claude-code', '--undo', '--yes']);
  assert.equal(undo.status, 0, undo.stderr);
  assert.ok(!existsSync(join(home, '.claude', 'settings.json')), 'Mnemo created it: the undo removes it');
});
