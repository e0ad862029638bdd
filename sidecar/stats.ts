/**
 * Statistics per project for the dashboard and `mnemo stats`, counted the way the status bar and the tree
 * count (views/counts.ts): the memories in use (active, pending, confirmed); wrong and archived ones as a
 * figure of their own, never in the totals, the 7-day count, the actionable count or the histogram (a bar
 * that counted them would filter the tree, which hides them, to nothing).
 */
import type { Core } from './core';
import type { MemoryStatus } from './model';
import type { LlmUsageCounter } from './llm/usage';
import type { ProjectStats, StatsResult } from './protocol';
import { buildWhere } from './store/where';

const DAY_MS = 24 * 3600 * 1000;

/** The statuses counted as memories (the status bar's and the tree's). */
const IN_USE: readonly MemoryStatus[] = ['active', 'pending', 'confirmed'];

export interface StatsDeps {
  /** Captures waiting in the durable queue. */
  queued: () => number;
  /** How Chroma runs: `remote <url>` or `embedded (...)`. */
  chroma: () => string;
  llmUsage: LlmUsageCounter;
}

export async function stats(core: Core, deps: StatsDeps, projectId?: string): Promise<StatsResult> {
  const all = (await core.store.find(buildWhere({ project_id: projectId }))).map((r) => r.memory);
  const since = core.clock().getTime() - 7 * DAY_MS;
  const byProject = new Map<string, ProjectStats>();
  for (const m of all) {
    let s = byProject.get(m.project_id);
    if (!s) {
      s = {
        project_id: m.project_id,
        total: 0,
        retired: 0,
        new_7d: 0,
        actionable: 0,
        pending: 0,
        by_status: { active: 0, pending: 0, confirmed: 0, wrong: 0, archived: 0, superseded: 0 },
        by_category: { persona: 0, episodic: 0, instruction: 0 },
        confidence_histogram: new Array<number>(10).fill(0),
      };
      byProject.set(m.project_id, s);
    }
    s.by_status[m.status]++;
    if (!IN_USE.includes(m.status)) {
      if (m.status === 'wrong' || m.status === 'archived') s.retired++;
      continue;
    }
    s.total++;
    if (Date.parse(m.created_at) >= since) s.new_7d++;
    if (m.is_actionable) s.actionable++;
    if (m.status === 'pending') s.pending++;
    s.by_category[m.category]++;
    s.confidence_histogram[Math.min(9, Math.floor(m.confidence_score * 10))]++;
  }
  const projects = [...byProject.values()].sort((a, b) => a.project_id.localeCompare(b.project_id));
  const { prompt, completion, extractions } = deps.llmUsage.read();
  return {
    projects,
    total: projects.reduce((n, p) => n + p.total, 0),
    retired: projects.reduce((n, p) => n + p.retired, 0),
    queued: deps.queued(),
    embedding_model: core.embedding.modelId,
    embedding_ready: core.model.ready,
    chroma: deps.chroma(),
    llm_tokens: { prompt, completion, extractions },
  };
}
