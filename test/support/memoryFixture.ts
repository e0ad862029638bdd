/** A stored memory for the pure unit tests (dedup, neighbours, import plan): every field set, `over` on top. */
import type { Memory } from '../../sidecar/model';

const THEN = '2026-01-01T00:00:00.000Z';

export function storedMemory(over: Partial<Memory> & Pick<Memory, 'id' | 'text'>): Memory {
  return {
    category: 'instruction',
    source_type: 'chat',
    project_id: 'p1',
    confidence_score: 0.9,
    is_actionable: false,
    source_ref: [],
    status: 'active',
    created_at: THEN,
    updated_at: THEN,
    last_seen_at: THEN,
    times_seen: 1,
    added_by: 'tester@ci',
    reason: 'test',
    score: 6,
    embedding_model: 'test',
    embedding_dim: 2,
    use_count: 0,
    ...over,
  };
}
