/**
 * Sums over `mnemo/memory/counts` groups: the tree's category and source numbers, and the workspace-scoped
 * numbers that the status bar, the Review Queue badge and the "Other projects" node share. No `vscode`
 * import; unit-tested in test/unit/counts.test.ts.
 */
import type { Category, MemoryStatus, SourceType } from '../../sidecar/model';
import type { CountGroup } from '../../sidecar/protocol';

/** Statuses counted as "memories" in the status bar and the Other projects node (wrong and archived are not in use). */
export const IN_USE: readonly MemoryStatus[] = ['active', 'pending', 'confirmed'];

export interface TreeCounts {
  byCategory: Map<Category, number>;
  bySource: Map<Category, Map<SourceType, number>>;
}

/** Per category, and per category and source type, of the groups whose status is listed. */
export function treeCounts(groups: readonly CountGroup[], statuses: readonly MemoryStatus[]): TreeCounts {
  const byCategory = new Map<Category, number>();
  const bySource = new Map<Category, Map<SourceType, number>>();
  for (const g of groups) {
    if (!statuses.includes(g.status)) continue;
    byCategory.set(g.category, (byCategory.get(g.category) ?? 0) + g.count);
    let sources = bySource.get(g.category);
    if (!sources) bySource.set(g.category, (sources = new Map()));
    sources.set(g.source_type, (sources.get(g.source_type) ?? 0) + g.count);
  }
  return { byCategory, bySource };
}

export interface ProjectCount {
  projectId: string;
  /** Memories in use (active, pending, confirmed). */
  memories: number;
  pending: number;
}

export interface ScopeCounts {
  /** The workspace's projects (Global included), in the order given. */
  workspace: ProjectCount[];
  /** Sums over the workspace's projects. */
  memories: number;
  pending: number;
  /** Wrong or archived memories of the workspace's projects (not counted in `memories`). */
  retired: number;
  /** Projects outside the workspace that hold memories in use, most first. */
  others: ProjectCount[];
}

/** Splits whole-store groups into the workspace's projects and the others. */
export function scopeCounts(
  groups: readonly CountGroup[],
  workspaceProjectIds: readonly string[],
): ScopeCounts {
  const per = new Map<string, ProjectCount>();
  let retired = 0;
  const inWorkspace = new Set(workspaceProjectIds);
  for (const g of groups) {
    if (!IN_USE.includes(g.status)) {
      if (inWorkspace.has(g.project_id)) retired += g.count;
      continue;
    }
    let p = per.get(g.project_id);
    if (!p) per.set(g.project_id, (p = { projectId: g.project_id, memories: 0, pending: 0 }));
    p.memories += g.count;
    if (g.status === 'pending') p.pending += g.count;
  }
  const workspace = workspaceProjectIds.map(
    (projectId) => per.get(projectId) ?? { projectId, memories: 0, pending: 0 },
  );
  const others = [...per.values()]
    .filter((p) => !inWorkspace.has(p.projectId))
    .sort((a, b) => b.memories - a.memories || a.projectId.localeCompare(b.projectId));
  return {
    workspace,
    memories: workspace.reduce((n, p) => n + p.memories, 0),
    pending: workspace.reduce((n, p) => n + p.pending, 0),
    retired,
    others,
  };
}

/**
 * A first run: the workspace's projects (Global included) hold no memory at all, not even a wrong or
 * archived one. The Memories view then shows its welcome (the steps that give value at once) instead of
 * empty project rows. False while the numbers are unknown.
 */
export function isEmptyWorkspace(s: ScopeCounts | undefined): boolean {
  return s !== undefined && s.memories === 0 && s.retired === 0;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The scope's numbers in words (status bar tooltip and screen readers). */
export function describeScope(s: ScopeCounts, projectLabel: (projectId: string) => string): string[] {
  const names = s.workspace.map((p) => projectLabel(p.projectId)).join(', ');
  const lines = [`${plural(s.memories, 'memory', 'memories')} in this workspace's projects (${names})`];
  lines.push(s.pending ? `${s.pending} waiting for review` : 'nothing waiting for review');
  if (s.retired) lines.push(`${s.retired} marked wrong or archived, not counted`);
  if (s.others.length) {
    const more = s.others.reduce((n, p) => n + p.memories, 0);
    lines.push(
      `${plural(more, 'memory', 'memories')} in ${plural(s.others.length, 'other project')} (under "Other projects")`,
    );
  }
  return lines;
}
