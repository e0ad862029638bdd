/**
 * Roo Code (`rooveterinaryinc.roo-cline`), Cline's fork: tasks in
 * `<User>/globalStorage/rooveterinaryinc.roo-cline/tasks/<task id>/ui_messages.json` (read by clineTasks.ts,
 * saved with a temporary file and a rename), each task's history item beside it in `history_item.json`
 * (`workspace`: the folder it worked in; `parentTaskId`: a sub-task spawned by another task, whose first
 * message the parent agent wrote). A task without a history item has no known folder and is not captured.
 */
import { join } from 'node:path';
import type { SourceAdapter, SourceEnv, TranscriptFile } from '../types';
import { readJsonFile } from '../read';
import { obj, str, vscodeUserDir } from './common';
import { readTask, taskFiles } from './clineTasks';

const SPEAKER = 'Roo Code';
const EXTENSION = 'rooveterinaryinc.roo-cline';

function bases(env: SourceEnv): string[] {
  return ['Code', 'Code - Insiders'].map((p) => join(vscodeUserDir(env, p), 'globalStorage', EXTENSION));
}

async function discover(env: SourceEnv): Promise<TranscriptFile[]> {
  const out: TranscriptFile[] = [];
  for (const base of bases(env)) {
    out.push(
      ...(await taskFiles('roo-code', base, async (id) => {
        const item = obj(await readJsonFile(join(base, 'tasks', id, 'history_item.json')));
        const cwd = str(item?.workspace);
        const parent = str(item?.parentTaskId);
        return { ...(cwd ? { cwd } : {}), ...(parent ? { parent } : {}) };
      })),
    );
  }
  return out;
}

export const rooCode: SourceAdapter = {
  id: 'roo-code',
  speaker: SPEAKER,
  roots: (env) => bases(env).map((b) => join(b, 'tasks')),
  discover,
  read: (f, _offset, _state, opts) => readTask(f, opts, SPEAKER),
};
