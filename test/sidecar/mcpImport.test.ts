/**
 * `mnemo import-rules`, `promote-to-repo` and `export --format` through the real CLI (real Chroma, real
 * model): a repository's AGENTS.md imported twice stores its rules once, with file:line provenance and
 * secrets redacted; confirmed memories promoted into Mnemo's section are not re-imported; the readable
 * export is plain, redacted and says it is not encrypted.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { REPO, TEST_MODEL, cleanupDataDir, tempDataDir, testModelPath } from '../support/sidecarSession';

const CLI = join(REPO, 'dist', 'cli.js');

const AGENTS_MD = [
  '# plc-gateway',
  '',
  '## Conventions',
  '',
  '- Use pnpm, not npm, for every package in this repo.',
  '- Run `make lint` before pushing;',
  '  CI rejects unformatted code.',
  '- The staging deploy token is ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 and must never be committed.',
  '- What about yarn?',
  '',
  '```sh',
  'npm test',
  '```',
  '',
  'Deploys go out on Tuesdays after the 10:00 standup.',
  '',
].join('\n');

const CURSOR_RULE = [
  '---',
  'description: Python style',
  'globs: "**/*.py"',
  '---',
  '',
  'Python services target 3.11 and use ruff for linting.',
  '',
].join('\n');

describe('import-rules, promote-to-repo, export --format', () => {
  const dir = tempDataDir('mnemo-rules-');
  const data = join(dir, 'data');
  const repo = join(dir, 'plc-gateway');
  after(() => {
    cleanupDataDir(data);
    rmSync(dir, { recursive: true, force: true });
  });

  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MNEMO_'))),
    MNEMO_DATA_DIR: data,
    MNEMO_EMBEDDING_MODEL: TEST_MODEL,
    MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
    MNEMO_EMBEDDING_ALLOW_REMOTE: '0',
    MNEMO_USER: 'alice@laptop',
    // Mnemo's backup folder for the files it changes, here rather than in the user's own state folder.
    XDG_STATE_HOME: join(dir, 'state'),
  };
  const mnemo = (...args: string[]) => {
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [CLI, ...args], {
      cwd: repo,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (process.env.MNEMO_DEBUG_TIMES)
      process.stderr.write(`mnemo ${args.join(' ')}: ${Date.now() - t0} ms, exit ${r.status}\n`);
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  test('importing AGENTS.md (and .cursor/rules) twice stores its rules once, pending review, with file:line provenance, redacted', () => {
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(
      join(repo, '.git', 'config'),
      '[remote "origin"]\n\turl = git@github.com:acme/plc-gateway.git\n',
    );
    writeFileSync(join(repo, 'AGENTS.md'), AGENTS_MD);
    mkdirSync(join(repo, '.cursor', 'rules'), { recursive: true });
    writeFileSync(join(repo, '.cursor', 'rules', 'python.mdc'), CURSOR_RULE);

    const first = mnemo('import-rules', '--json');
    assert.equal(first.code, 0, first.stderr);
    const r1 = JSON.parse(first.stdout) as {
      files: string[];
      stored: number;
      pending: number;
      refused: number;
      items: { source_ref: string; outcome: string; text: string }[];
    };
    assert.deepEqual(r1.files, ['AGENTS.md', '.cursor/rules/python.mdc']);
    assert.equal(r1.stored, 0, 'an import is not a confirmation');
    assert.equal(r1.pending, 5);
    assert.equal(r1.refused, 1, 'a question is not a rule');
    assert.deepEqual(
      r1.items.filter((i) => i.outcome === 'pending').map((i) => i.source_ref),
      [
        'file:AGENTS.md#L5',
        'file:AGENTS.md#L6',
        'file:AGENTS.md#L8',
        'file:AGENTS.md#L15',
        'file:.cursor/rules/python.mdc#L6',
      ],
    );

    const second = mnemo('import-rules');
    assert.equal(second.code, 0, second.stderr);
    assert.match(
      second.stdout,
      /0 waiting for review, 0 stored, 0 refreshed, 5 already imported, 1 not rules/,
    );

    let list = JSON.parse(mnemo('list', '--json').stdout) as {
      total: number;
      items: { text: string; source_ref: string[]; status: string; project_id: string; tier: string }[];
    };
    assert.equal(list.total, 5, 'each rule once');
    for (const m of list.items) {
      assert.equal(m.project_id, 'github.com/acme/plc-gateway');
      assert.equal(m.status, 'pending', 'an import waits for a person');
      assert.equal(m.tier, 'outside');
    }
    // "Confirm All from AGENTS.md", then the cursor rule on its own
    const confirmed = mnemo('confirm', '--file', 'AGENTS.md');
    assert.equal(confirmed.code, 0, confirmed.stderr);
    assert.match(
      confirmed.stdout,
      /^Confirmed 4 rules imported from AGENTS\.md in github\.com\/acme\/plc-gateway\.\n$/,
    );
    assert.equal(mnemo('confirm', '--file', '.cursor/rules/python.mdc').code, 0);
    list = JSON.parse(mnemo('list', '--json').stdout) as typeof list;
    for (const m of list.items) {
      assert.equal(m.status, 'confirmed');
      assert.equal(m.tier, 'person', 'a person confirmed it');
    }
    const lint = list.items.find((m) => m.text.includes('make lint'))!;
    assert.equal(
      lint.text,
      'Run `make lint` before pushing; CI rejects unformatted code.',
      'wrapped lines joined',
    );
    assert.deepEqual(lint.source_ref, ['file:AGENTS.md#L6']);
    const token = list.items.find((m) => m.text.includes('staging deploy token'))!;
    assert.ok(!token.text.includes('ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'), `redacted: ${token.text}`);
  });

  test('promote-to-repo writes confirmed memories into Mnemo’s section as a diff, not the file’s own rules; audited; not re-imported', () => {
    const plan = mnemo('promote-to-repo');
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /\+<!-- mnemo:memories:begin/);
    assert.match(plan.stdout, /Left out 4 already in AGENTS\.md \(imported from line 5, 6, 8, 15\)\./);
    assert.match(plan.stdout, /Nothing was written; run again with --yes/);
    assert.equal(readFileSync(join(repo, 'AGENTS.md'), 'utf8'), AGENTS_MD, 'nothing written without a yes');

    const w = mnemo('promote-to-repo', '--yes');
    assert.equal(w.code, 0, w.stderr);
    const md = readFileSync(join(repo, 'AGENTS.md'), 'utf8');
    assert.ok(md.startsWith(AGENTS_MD.trimEnd()), 'the file above the section is untouched');
    assert.match(
      md,
      /### Rules and decisions\n\n- Python services target 3\.11 and use ruff for linting\. <!-- mem_[0-9a-f]{16} -->/,
    );
    assert.equal(
      md.split('Use pnpm, not npm').length,
      2,
      "AGENTS.md's own rule is not written a second time",
    );
    const backups = join(dir, 'state', 'mnemo', 'file-backups');
    const kept = readdirSync(backups).filter((f) => f.startsWith('AGENTS.md.'));
    assert.equal(kept.length, 1, 'the previous file is kept in Mnemo’s backup folder');
    assert.equal(readFileSync(join(backups, kept[0]!), 'utf8'), AGENTS_MD, 'the previous file is kept');
    assert.ok(
      !readdirSync(repo).some((f) => f.includes('mnemo-backup')),
      'no backup is left inside the repository',
    );
    assert.match(mnemo('promote-to-repo', '--yes').stdout, /Already up to date/, 'idempotent');

    const audit = JSON.parse(mnemo('audit', '--json').stdout) as {
      action: string;
      changes?: { source_ref?: [string[], string[]] };
    }[];
    assert.equal(
      audit.filter((e) => e.action === 'update' && e.changes?.source_ref?.[1]?.includes('file:AGENTS.md'))
        .length,
      1,
    );

    const again = mnemo('import-rules', '--json');
    const r = JSON.parse(again.stdout) as { stored: number; pending: number; unchanged: number };
    assert.deepEqual(
      [r.stored, r.pending, r.unchanged],
      [0, 0, 5],
      'the promoted section is not imported back',
    );
  });

  test('export --format jsonl|markdown: plain, redacted, 0600, says it is not encrypted', () => {
    const out = join(dir, 'memories.jsonl');
    const j = mnemo('export', '--format', 'jsonl', '--out', out);
    assert.equal(j.code, 0, j.stderr);
    assert.match(j.stdout, /5 memories as jsonl.*NOT encrypted/);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { text: string; source_ref: string[] });
    assert.equal(lines.length, 5);
    assert.ok(lines.every((l) => l.source_ref.length > 0));
    const md = mnemo('export', '--format', 'markdown', '--out', '-');
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /^# Mnemo memories\n/);
    assert.match(md.stdout, /not encrypted/);
    assert.match(md.stdout, /## github\.com\/acme\/plc-gateway/);
    for (const text of [readFileSync(out, 'utf8'), md.stdout])
      assert.ok(!text.includes('ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'));
    const bad = mnemo('export', '--format', 'csv', '--out', out);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--format must be jsonl or markdown\./);
  });
});
