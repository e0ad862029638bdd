/** Resolves a memory's file reference (`src/a.ts:12`) to a file of the workspace. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { workspaceProjects } from '../projects';

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Resolve a file reference against the memory's project folders, then every workspace folder. */
export async function resolveFileRef(
  memory: Pick<Memory, 'project_id'>,
  file: string,
): Promise<vscode.Uri | undefined> {
  if (path.isAbsolute(file)) return (await exists(vscode.Uri.file(file))) ? vscode.Uri.file(file) : undefined;
  const projects = workspaceProjects(false);
  const own = projects.filter((p) => p.projectId === memory.project_id).flatMap((p) => p.folders);
  const others = projects.filter((p) => p.projectId !== memory.project_id).flatMap((p) => p.folders);
  for (const folder of [...own, ...others]) {
    const uri = vscode.Uri.joinPath(folder.uri, file);
    if (await exists(uri)) return uri;
  }
  return undefined;
}
