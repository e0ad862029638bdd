/** The projects of the current workspace: one per workspace folder (multi-root), plus Global. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { GLOBAL_PROJECT } from '../sidecar/model';
import { projectIdFor } from '../sidecar/shared/project';

export interface WorkspaceProject {
  projectId: string;
  /** Folder name, or "Global". */
  label: string;
  /** The folder(s) mapping to this id (two folders of one repository share an id). */
  folders: vscode.WorkspaceFolder[];
}

const cache = new Map<string, string>();

/** project_id of a folder path, cached per path (reading .git/config is cheap but not free). */
export function projectIdOfPath(fsPath: string): string {
  let id = cache.get(fsPath);
  if (!id) {
    id = projectIdFor(fsPath);
    cache.set(fsPath, id);
  }
  return id;
}

export function clearProjectCache(): void {
  cache.clear();
}

/** Workspace projects in folder order (deduplicated by id), Global last. */
export function workspaceProjects(includeGlobal = true): WorkspaceProject[] {
  const byId = new Map<string, WorkspaceProject>();
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    const projectId = projectIdOfPath(folder.uri.fsPath);
    const existing = byId.get(projectId);
    if (existing) existing.folders.push(folder);
    else byId.set(projectId, { projectId, label: folder.name, folders: [folder] });
  }
  const list = [...byId.values()];
  if (includeGlobal) list.push({ projectId: GLOBAL_PROJECT, label: 'Global', folders: [] });
  return list;
}

/** Ids of the workspace's projects (without Global, which recall always includes). */
export function workspaceProjectIds(): string[] {
  return workspaceProjects(false).map((p) => p.projectId);
}

/** The project of a document/file, else of the first workspace folder, else Global. */
export function projectIdForUri(uri: vscode.Uri | undefined): string {
  if (uri) {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (folder && folder.uri.scheme === 'file') return projectIdOfPath(folder.uri.fsPath);
  }
  return workspaceProjectIds()[0] ?? GLOBAL_PROJECT;
}

/** The project of a cwd (terminal), matched against workspace folders by prefix, else the first folder. */
export function projectIdForCwd(cwd: string | undefined): string {
  if (cwd) {
    const folders = [...(vscode.workspace.workspaceFolders ?? [])]
      .filter((f) => f.uri.scheme === 'file')
      .sort((a, b) => b.uri.fsPath.length - a.uri.fsPath.length);
    for (const f of folders) {
      const rel = path.relative(f.uri.fsPath, cwd);
      if (!rel.startsWith('..') && !path.isAbsolute(rel)) return projectIdOfPath(f.uri.fsPath);
    }
  }
  return projectIdForUri(vscode.window.activeTextEditor?.document.uri);
}

/** The label to show for a project id. */
export function projectLabel(projectId: string): string {
  if (projectId === GLOBAL_PROJECT) return 'Global';
  return workspaceProjects(false).find((p) => p.projectId === projectId)?.label ?? projectId;
}
