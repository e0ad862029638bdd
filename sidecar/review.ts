/**
 * A review queue a person can keep up with (issue 32): many pending memories confirmed, rejected or
 * archived at once (`mnemo/review/apply`), undone as one step (`mnemo/review/undo`: every memory the step
 * changed — also the older memory a confirmed change superseded — goes back to what it was), and pending
 * memories nobody reviewed archived after `mnemo.review.archivePendingAfterDays` (kept, found by search and
 * as evidence, never recalled). Every change is audited through memories.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Core } from './core';
import { errorMessage, InvalidInputError, NotFoundError } from './shared/errors';
import type { Memories } from './memories';
import type { Memory } from './model';
import type { ReviewApplyParams, ReviewApplyResult, ReviewUndoParams } from './protocol';
import { buildWhere } from './store/where';

/** Undo steps kept (the newest); older steps can no longer be undone. */
const UNDO_STEPS = 20;
/** The fields a review step changes, and only these are put back. */
const REVIEW_FIELDS = [
  'status',
  'confidence_score',
  'confirmed_by',
  'wrong_by',
  'wrong_at',
  'notify_user',
  'may_change',
  'supersedes',
  'superseded_by',
  'contested_by',
] as const;

type Snapshot = Pick<Memory, 'id' | (typeof REVIEW_FIELDS)[number]>;

function snapshot(m: Memory): Snapshot {
  const s: Record<string, unknown> = { id: m.id };
  for (const f of REVIEW_FIELDS) s[f] = m[f];
  return s as Snapshot;
}

/** Pending memories older than `days` as of `asOf` (pure: the ageing plan). */
export function planAgeing(pending: Memory[], asOf: Date, days: number): Memory[] {
  if (!(days > 0)) return [];
  const before = asOf.getTime() - days * 86_400_000;
  return pending.filter((m) => m.status === 'pending' && Date.parse(m.created_at) < before);
}

/** How often pending memories are checked for ageing. */
const AGEING_EVERY_MS = 6 * 3600 * 1000;

export class Review {
  private readonly steps = new Map<string, Snapshot[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly core: Core,
    private readonly memories: Memories,
  ) {}

  /** The memories a step on these ids may change: each one, and the older memory a pending one may change. */
  private async affected(ids: string[]): Promise<Memory[]> {
    const own = await this.core.store.get(ids);
    const others = own.flatMap((m) => [m.may_change, m.contested_by]).filter((x): x is string => !!x);
    return [...own, ...(others.length ? await this.core.store.get(others) : [])];
  }

  async apply(p: ReviewApplyParams): Promise<ReviewApplyResult> {
    if (!p || !Array.isArray(p.ids) || p.ids.some((i) => typeof i !== 'string'))
      throw new InvalidInputError('"ids" must be a list of memory ids.');
    if (!['confirm', 'reject', 'archive'].includes(p.action))
      throw new InvalidInputError('The review action must be confirm, reject or archive.');
    const ids = [...new Set(p.ids)];
    const before = await this.affected(ids);
    let changed = 0;
    const failed: string[] = [];
    for (const id of ids) {
      try {
        if (p.action === 'confirm') await this.memories.confirm({ id, by: p.by });
        else if (p.action === 'reject') await this.memories.markWrong({ id, by: p.by });
        else
          await this.memories.change(id, p.by, 'archive', (m) => ({ ...m, status: 'archived' }), {
            note: 'archived from the review queue',
          });
        changed++;
      } catch (e) {
        if (!(e instanceof NotFoundError))
          this.core.log.warn(`Review ${p.action} of ${id} failed: ${errorMessage(e)}`);
        failed.push(id);
      }
    }
    const token = randomUUID();
    this.steps.set(token, before.map(snapshot));
    while (this.steps.size > UNDO_STEPS) this.steps.delete(this.steps.keys().next().value!);
    return { changed, failed, undo_token: token };
  }

  async undo(p: ReviewUndoParams): Promise<{ restored: number }> {
    const step = p && typeof p.undo_token === 'string' ? this.steps.get(p.undo_token) : undefined;
    if (!step)
      throw new NotFoundError(
        'That review step can no longer be undone (too old, or the sidecar restarted).',
      );
    this.steps.delete(p.undo_token);
    let restored = 0;
    for (const s of step) {
      await this.memories.change(s.id, p.by, 'update', (m) => ({ ...m, ...s }), {
        note: 'review step undone',
      });
      restored++;
    }
    return { restored };
  }

  /** Ages the review queue now and every six hours (the setting is read each time). */
  startTimers(): void {
    // After the model picked the store's collection: the queue is read from it.
    const run = () =>
      void this.core
        .requireModel()
        .then(() => this.ageOut(this.core.clock(), this.core.config.review.archivePendingAfterDays))
        .then(
          (n) =>
            n &&
            this.core.log.info(
              `Archived ${n} pending memories nobody reviewed (mnemo.review.archivePendingAfterDays).`,
            ),
          (e: unknown) => this.core.log.error(`Ageing the review queue failed: ${errorMessage(e)}`),
        );
    run();
    this.timer = setInterval(run, AGEING_EVERY_MS);
    this.timer.unref?.();
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Archives the pending memories nobody reviewed within `days` (0: never). Returns how many. */
  async ageOut(asOf: Date, days: number): Promise<number> {
    if (!(days > 0)) return 0;
    const pending = (await this.core.store.find(buildWhere({ status: ['pending'] }))).map((r) => r.memory);
    const old = planAgeing(pending, asOf, days);
    for (const m of old) {
      await this.memories.change(m.id, 'mnemo-review', 'archive', (x) => ({ ...x, status: 'archived' }), {
        note: `nobody reviewed it in ${days} days (mnemo.review.archivePendingAfterDays)`,
      });
      // The older memory it might have changed is no longer contested.
      if (m.may_change) {
        const [older] = await this.core.store.get([m.may_change]);
        if (older?.contested_by === m.id)
          await this.memories.change(
            older.id,
            'mnemo-review',
            'update',
            (x) => ({ ...x, contested_by: undefined }),
            {
              note: `kept: ${m.id}, which may have changed it, was archived unreviewed`,
            },
          );
      }
    }
    return old.length;
  }
}
