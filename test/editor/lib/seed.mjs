// Pre-seeds the installed extension's data folder with memories before
// code-server starts, through the extension's own CLI (dist/cli.js `ingest`),
// so the UI tests start from known memories without racing the sidecar.
//
// UI test modules declare what they need:
//   export const seed = [{ project?, sourceType?, messages: [{ role, content }] }];
// `project` defaults to the workspace folder's project (the CLI runs in the
// workspace folder and derives it like the extension does); `sourceType`
// defaults to 'manual'. Entries with the same project and source type are
// ingested as one session (the pipeline skips sessions with fewer than two
// substantive lines, so give each entry at least two: modules may run alone
// with --grep). `wrong: [words]` marks the memories whose text holds those words wrong after
// ingest (`mnemo mark-wrong`). The memories the pipeline kept come back as
// { workspaceProject, memories } (`ctx.seed` in the UI tests).
import fs from 'node:fs';
import path from 'node:path';
import { runToCompletion } from './processes.mjs';

/** VS Code's global storage folder of an extension inside a user-data-dir. */
export function globalStorageDir(userDataDir, extensionId) {
  return path.join(userDataDir, 'User', 'globalStorage', extensionId.toLowerCase());
}

export async function seedMemories({
  cli,
  dataDir,
  env,
  workspace,
  model,
  modelPath,
  seeds,
  workDir,
  logFile,
  timeoutMs = 120_000,
}) {
  if (!fs.existsSync(cli)) throw new Error(`seeding needs the extension's CLI, ${cli} is missing`);
  if (!modelPath || !fs.existsSync(modelPath)) {
    throw new Error(
      `seeding needs the embedding model: mnemo.embedding.modelPath (${modelPath || 'unset'}) does not exist (run scripts/fetch-model.sh)`,
    );
  }
  fs.mkdirSync(dataDir, { recursive: true });
  fs.mkdirSync(workDir, { recursive: true });
  const cliEnv = {
    ...env,
    MNEMO_EMBEDDING_PROVIDER: 'local',
    MNEMO_EMBEDDING_MODEL: model ?? '',
    MNEMO_EMBEDDING_MODEL_PATH: modelPath,
    MNEMO_EMBEDDING_ALLOW_REMOTE: '0',
    MNEMO_EMBEDDING_REMOTE_HOST: 'http://127.0.0.1:9',
  };
  delete cliEnv.MNEMO_PROJECT;
  delete cliEnv.MNEMO_DATA_DIR;
  const run = async (label, args) => {
    const out = path.join(workDir, `${label}.json`);
    fs.appendFileSync(logFile, `\n=== ${new Date().toISOString()} mnemo ${args.join(' ')}\n`);
    const r = await runToCompletion(
      process.execPath,
      [cli, ...args, '--data-dir', dataDir, '--model-path', modelPath],
      {
        env: cliEnv,
        cwd: workspace,
        timeoutMs,
        logFile,
        stdoutFile: out,
      },
    );
    const text = fs.readFileSync(out, 'utf8');
    if (r.code !== 0)
      throw new Error(
        `mnemo ${args[0]} exited with ${r.code ?? r.signal} (see ${logFile}): ${text.slice(0, 300)}`,
      );
    return JSON.parse(text);
  };

  const groups = new Map();
  for (const s of seeds) {
    if (!Array.isArray(s.messages) || s.messages.length === 0)
      throw new Error(`seed entry without messages (from ${s.from})`);
    const key = `${s.project ?? ''}\u0000${s.sourceType ?? 'manual'}`;
    if (!groups.has(key))
      groups.set(key, {
        project: s.project,
        sourceType: s.sourceType ?? 'manual',
        messages: [],
        wrong: [],
        from: new Set(),
      });
    groups.get(key).messages.push(...s.messages);
    groups.get(key).wrong.push(...(s.wrong ?? []));
    groups.get(key).from.add(s.from);
  }
  let workspaceProject;
  const reports = [];
  let i = 0;
  for (const g of groups.values()) {
    const file = path.join(workDir, `session-${i}.json`);
    fs.writeFileSync(file, JSON.stringify(g.messages, null, 2));
    const args = [
      'ingest',
      '--json',
      '--explain',
      '--source-type',
      g.sourceType,
      ...(g.project ? ['--project', g.project] : []),
      file,
    ];
    const report = await run(`ingest-${i++}`, args);
    // The pipeline skips whole sessions (e.g. "too short": fewer than 2 substantive lines).
    if (report.skipped)
      throw new Error(
        `the seed of ${[...g.from].join(', ')} (${g.project ?? 'workspace'}, ${g.sourceType}) was skipped by the pipeline: ${report.skipped}`,
      );
    if (!g.project) workspaceProject = report.project_id;
    reports.push(report);
  }
  let listed = await run('list', ['list', '--json', '--limit', '10000']);
  const toMark = [...groups.values()].flatMap((g) => g.wrong.map((text) => ({ text, project: g.project })));
  for (const [k, { text, project }] of toMark.entries()) {
    const m = listed.items.find((x) => x.text.includes(text) && (!project || x.project_id === project));
    if (!m) throw new Error(`the seed marks "${text}" wrong, but the pipeline kept no such memory`);
    // `mark-wrong` prints a sentence, not JSON: run it and read the list again.
    const out = path.join(workDir, `wrong-${k}.txt`);
    const r = await runToCompletion(
      process.execPath,
      [cli, 'mark-wrong', m.id, '--data-dir', dataDir, '--model-path', modelPath],
      { env: cliEnv, cwd: workspace, timeoutMs, logFile, stdoutFile: out },
    );
    if (r.code !== 0) throw new Error(`mnemo mark-wrong exited with ${r.code ?? r.signal} (see ${logFile})`);
  }
  if (toMark.length) listed = await run('list', ['list', '--json', '--limit', '10000']);
  return { workspaceProject, memories: listed.items, reports };
}
