/** Statistics per project for the dashboard, the status bar and `mnemo stats`. */
import type { Core } from './core';
import type { LlmUsageCounter } from './llm/usage';
import type { ProjectStats, StatsResult } from './protocol';
import { buildWhere } from './store/memoryStore';

const DAY_MS = 24 * 3600 * 1000;

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
        new_7d: 0,
        actionable: 0,
        pending: 0,
        by_status: { active: 0, pending: 0, confirmed: 0, wrong: 0, archived: 0, superseded: 0 },
        by_category: { persona: 0, episodic: 0, instruction: 0 },
        confidence_histogram: new Array<number>(10).fill(0),
      };
      byProject.set(m.project_id, s);
    }
    s.total++;
    if (Date.parse(m.created_at) >= since) s.new_7d++;
    if (m.is_actionable) s.actionable++;
    if (m.status === 'pending') s.pending++;
    s.by_status[m.status]++;
    s.by_category[m.category]++;
    s.confidence_histogram[Math.min(9, Math.floor(m.confidence_score * 10))]++;
  }
  const projects = [...byProject.values()].sort((a, b) => a.project_id.localeCompare(b.project_id));
  const { prompt, completion, extractions } = deps.llmUsage.read();
  return {
    projects,
    total: all.length,
    queued: deps.queued(),
    embedding_model: core.embedding.modelId,
    embedding_ready: core.model.ready,
    chroma: deps.chroma(),
    llm_tokens: { prompt, completion, extractions },
  };
}
