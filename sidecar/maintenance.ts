/**
 * Keeping the store healthy over time: applying the monthly decay plan (lifecycle/decay.ts), the clean
 * preview and clean, and the background timers — decay, the retention of kept turns and of the ledger now
 * and every six hours, scheduled backups (backup/schedule.ts).
 */
import { startBackupSchedule } from './backup/schedule';
import type { Core } from './core';
import { errorMessage, InvalidInputError } from './shared/errors';
import type { Memories } from './memories';
import type { DecayParams, DecayResult, ListResult } from './protocol';
import { buildWhere } from './store/where';
import { futureAsOfError, planDecay } from './lifecycle/decay';

const DECAY_EVERY_MS = 6 * 3600 * 1000;

export class Maintenance {
  private decayTimer: NodeJS.Timeout | undefined;
  private backupSchedule: { dispose(): void } | undefined;

  constructor(
    private readonly core: Core,
    private readonly memories: Memories,
  ) {}

  /** Starts the timers: decay is idempotent per month, so it runs now (catch-up after time offline) and every six hours. */
  startTimers(): void {
    const { core } = this;
    const runDecay = () =>
      void this.decay({ apply: true }).then(
        (r) =>
          r.steps.length &&
          core.log.info(
            `Decay applied to ${r.steps.length} memories (${r.steps.filter((x) => x.archive).length} archived).`,
          ),
        (e: unknown) => core.log.error(`Decay failed: ${errorMessage(e)}`),
      );
    const runRetention = () => {
      const days = core.config.episodes.retentionDays;
      if (!days || days <= 0) return;
      const before = new Date(core.clock().getTime() - days * 86_400_000).toISOString();
      void core.episodes.deleteOlderThan(before).then(
        (n) =>
          n &&
          core.log.info(`Deleted ${n} kept turns older than ${days} days (mnemo.episodes.retentionDays).`),
        (e: unknown) => core.log.error(`Deleting old kept turns failed: ${errorMessage(e)}`),
      );
    };
    const runLedgerRetention = () => {
      try {
        const n = core.ledger.prune(core.config.ledger.retentionDays, core.clock());
        if (n)
          core.log.info(`Deleted ${n} ledger files older than ${core.config.ledger.retentionDays} days.`);
      } catch (e) {
        core.log.error(`Deleting old ledger files failed: ${errorMessage(e)}`);
      }
    };
    const daily = () => {
      runDecay();
      runRetention();
      runLedgerRetention();
    };
    daily();
    this.decayTimer = setInterval(daily, DECAY_EVERY_MS);
    this.decayTimer.unref?.();
    this.backupSchedule = startBackupSchedule(
      core,
      () => {
        const b = core.config.backup;
        if (!b.folder || !b.password || !b.schedule || b.schedule === 'off') return undefined;
        return { folder: b.folder, every: b.schedule, keep: b.keep, password: b.password };
      },
      {
        clock: core.clock,
        log: (l) => (l.startsWith('Scheduled backup failed') ? core.log.error(l) : core.log.info(l)),
      },
    );
  }

  /** Previews (default) or applies monthly decay as of a date; archived under the floor, never deleted. */
  async decay(p: DecayParams = {}): Promise<DecayResult> {
    const { core } = this;
    const asOf = p.as_of ? new Date(p.as_of) : core.clock();
    if (Number.isNaN(asOf.getTime()))
      throw new InvalidInputError(`"${p.as_of}" is not a date; use YYYY-MM-DD.`);
    const future = futureAsOfError(asOf, core.clock());
    if (future) throw new InvalidInputError(future);
    const all = (await core.store.find(buildWhere({ status: ['active', 'confirmed', 'pending'] }))).map(
      (r) => r.memory,
    );
    const steps = planDecay(all, asOf, core.config.decay);
    if (p.apply && steps.length > 0) {
      const byId = new Map(all.map((m) => [m.id, m]));
      const now = core.now();
      for (let i = 0; i < steps.length; i += 200) {
        const batch = steps.slice(i, i + 200);
        const updated = batch.map((st) => ({
          ...byId.get(st.id)!,
          confidence_score: st.after,
          decayed_through: st.anchor,
          ...(st.archive ? { status: 'archived' as const } : {}),
          updated_at: now,
        }));
        await core.store.updateMetadata(updated);
        core.audit.append(
          batch.map((st) => ({
            at: now,
            action: st.archive ? ('archive' as const) : ('decay' as const),
            memory_id: st.id,
            project_id: st.project_id,
            by: 'mnemo-decay',
            changes: {
              confidence_score: [st.before, st.after] as [unknown, unknown],
              ...(st.archive ? { status: [st.status, 'archived'] as [unknown, unknown] } : {}),
            },
            note: `${st.months} month(s) of decay as of ${asOf.toISOString()}${st.slow ? ' (slow: confirmed or recently used)' : ''}`,
          })),
        );
      }
      core.notifyChanged(
        [...new Set(steps.map((st) => st.project_id))],
        steps.map((st) => st.id),
      );
    }
    return {
      as_of: asOf.toISOString(),
      applied: !!p.apply,
      steps: steps.map(({ id, text, project_id, months, before, after, archive }) => ({
        id,
        text,
        project_id,
        months,
        before,
        after,
        archive,
      })),
    };
  }

  /** Memories under the threshold (not tombstones, not already archived): the preview before cleaning. */
  async cleanPreview(p: { project_id?: string; threshold?: number }): Promise<ListResult> {
    const threshold = p.threshold ?? 0.5;
    if (!(threshold > 0 && threshold <= 1))
      throw new InvalidInputError('The threshold must be between 0 and 1.');
    return this.memories.list({
      project_id: p.project_id,
      status: ['active', 'pending', 'confirmed'],
      max_confidence: threshold,
      limit: 10_000,
    });
  }

  /** Archives or deletes the memories selected in the clean preview. */
  async clean(p: { ids: string[]; action: 'archive' | 'delete'; by?: string }): Promise<number> {
    if (p.action === 'delete') return this.memories.delete(p.ids, p.by);
    if (p.action !== 'archive') throw new InvalidInputError('The clean action must be archive or delete.');
    let n = 0;
    for (const id of p.ids ?? []) {
      await this.memories.change(id, p.by, 'archive', (m) => ({ ...m, status: 'archived' }));
      n++;
    }
    return n;
  }

  dispose(): void {
    if (this.decayTimer) clearInterval(this.decayTimer);
    this.backupSchedule?.dispose();
  }
}
