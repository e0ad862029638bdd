/** The zod schemas several MCP tools share: a memory as the tools show it, and a memory id argument. */
import { z } from 'zod';
import { CATEGORIES, TIERS } from '../../model';

export const ITEM = z.object({
  id: z.string(),
  text: z.string(),
  category: z.enum(CATEGORIES),
  status: z.string(),
  project_id: z.string(),
  confidence_score: z.number(),
  source_type: z.string(),
  source_ref: z.array(z.string()),
  added_by: z.string(),
  created_at: z.string(),
  confirmed_by: z.string().optional(),
  tier: z.enum(TIERS),
  score: z.number().optional(),
  /** recall only: a curated memory, or evidence (a past turn as it was said). */
  kind: z.enum(['memory', 'evidence']).optional(),
  speaker: z.string().optional(),
  occurred_at: z.string().optional(),
});

/** A memory id argument (mark_wrong, report, get). */
export const MEMORY_ID = z
  .string()
  .regex(/^mem_[0-9a-f]{16}$/, 'id must be a memory id like mem_0123456789abcdef (from recall or search).');
