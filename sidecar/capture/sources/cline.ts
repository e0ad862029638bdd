/**
 * Cline (`saoudrizwan.claude-dev`): tasks in VS Code's global storage,
 * `<User>/globalStorage/saoudrizwan.claude-dev/tasks/<task id>/ui_messages.json` (read by clineTasks.ts), and
 * for the Cline CLI and JetBrains in `~/.cline/data/tasks/` (`CLINE_DATA_DIR`, or `CLINE_DIR`/data). Which
 * folder a task worked in is in the task history, `state/taskHistory.json` (`cwdOnTaskInitialization`,
 * newer `workspaceRootOnTaskInitialization`); a task the history does not list (older builds kept it in
 * VS Code's own state database) has no known folder and is not captured.
 */
import { join } from 'node:path';
import type { SourceAdapter, SourceEnv, TranscriptFile } from '../types';
import { readJsonFile } from '../read';
import { arr, obj, str, vscodeUserDir } from './common';
import { readTask, taskFiles } from './clineTasks';

const SPEAKER = 'Cline';
const EXTENSION = 'saoudrizwan.claude-dev';

function bases(env: SourceEnv): string[] {
  const data =
    env.env.CLINE_DATA_DIR ||
    (env.env.CLINE_DIR ? join(env.env.CLINE_DIR, 'data') : join(env.home, '.cline', 'data'));
  return [
    join(vscodeUserDir(env, 'Code'), 'globalStorage', EXTENSION),
    join(vscodeUserDir(env, 'Code - Insiders'), 'globalStorage', EXTENSION),
    data,
  ];
}

async function discover(env: SourceEnv): Promise<TranscriptFile[]> {
  const out: TranscriptFile[] = [];
  for (const base of bases(env)) {
    const cwds = new Map<string, string>();
    for (const h of arr(await readJsonFile(join(base, 'state', 'taskHistory.json'), 32 * 1024 * 1024))) {
      const item = obj(h);
      const id = str(item?.id);
      const cwd = str(item?.cwdOnTaskInitialization) ?? str(item?.workspaceRootOnTaskInitialization);
      if (id && cwd) cwds.set(id, cwd);
    }
    out.push(...(await taskFiles('cline', base, async (id) => ({ cwd: cwds.get(id) }))));
  }
  return out;
}

export const cline: SourceAdapter = {
  id: 'cline',
  speaker: SPEAKER,
  roots: (env) => bases(env).map((b) => join(b, 'tasks')),
  discover,
  read: (f, _offset, _state, opts) => readTask(f, opts, SPEAKER),
};
