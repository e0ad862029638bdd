/**
 * Memories as a person sees them: browse (list, get), search (keyword or by meaning), the mutations a
 * person makes (confirm, mark wrong, edit, promote, delete — each audited and announced), an agent's
 * report on a memory it was served (lifecycle/report.ts), the audit log, and the notices a user gets when
 * a memory they confirmed was marked wrong by someone else. Deleting or wiping erases from the ledger too.
 */
import type { Core } from './core';
import { errorMessage, InvalidInputError, NotFoundError } from './shared/errors';
import { diff, snapshot } from './lifecycle/auditChanges';
import {
  applyReport,
  REPORT_WINDOW_MS,
  reportNote,
  reportRefusal,
  type ReportParams,
  type ReportResult,
} from './lifecycle/report';
import { turnsSaying } from './turnsSaying';
import { GLOBAL_PROJECT, isAgentName, isCategory, type Memory } from './model';
import { timesOf } from './pipeline/attribute';
import { redactText } from './pipeline/redact';
import type {
  AuditEntry,
  ConfirmFileParams,
  ConfirmFileResult,
  FeedbackParams,
  ListParams,
  ListResult,
  MemoryFilter,
  Notice,
  SearchParams,
  SearchResult,
  UpdateParams,
  WipeProjectParams,
  WipeProjectResult,
} from './protocol';
import { hybridSearch } from './recall/search';
import { buildWhere } from './store/where';
import { cutText } from './shared/text';
import { clampInt, round } from './util/numbers';
import { projectScope } from './store/projectScope';

export type { ReportParams, ReportResult } from './lifecycle/report';

/** Deleting up to this many memories at once also looks for other copies of what they say (turnsSaying.ts). */
const THOROUGH_DELETE = 20;

export class Memories {
  /** Reports run one at a time: two at once could count the same recall twice. */
  private reporting: Promise<unknown> = Promise.resolve();

  constructor(private readonly core: Core) {}

  // ------------------------------------------------------------------ browse and search

  async list(p: ListParams = {}): Promise<ListResult> {
    const all = await this.findFiltered(p);
    const newest = (a: Memory, b: Memory) =>
      b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id);
    const order: Record<NonNullable<ListParams['sort']>, (a: Memory, b: Memory) => number> = {
      newest,
      oldest: (a, b) => -newest(a, b),
      confidence: (a, b) => b.confidence_score - a.confidence_score || newest(a, b),
      used: (a, b) => b.use_count - a.use_count || newest(a, b),
    };
    all.sort(order[p.sort ?? 'newest'] ?? newest);
    const offset = Math.max(0, p.offset ?? 0);
    const limit = clampInt(p.limit ?? 200, 1, 10_000);
    return { items: all.slice(offset, offset + limit), total: all.length };
  }

  private async findFiltered(f: MemoryFilter & { project_ids?: string[] }): Promise<Memory[]> {
    // Several projects are taken as given (a search passes its scope); one project is listed alone.
    const projectIds = f.project_ids?.length ? f.project_ids : projectScope(f, false);
    const rows = await this.core.store.find(
      buildWhere({ ...f, project_id: undefined, project_ids: projectIds }),
    );
    return rows.map((r) => r.memory);
  }

  async get(id: string): Promise<Memory> {
    if (typeof id !== 'string' || !id) throw new InvalidInputError('A memory id is required.');
    const [m] = await this.core.store.get([id]);
    if (!m) throw new NotFoundError(`No memory with id ${id}.`);
    return m;
  }

  async search(p: SearchParams): Promise<SearchResult> {
    if (!p || typeof p.query !== 'string' || !p.query.trim())
      throw new InvalidInputError('The search query is empty.');
    const limit = clampInt(p.limit ?? 50, 1, 1000);
    const projectIds = projectScope(p, true);
    const where = buildWhere({ ...p, project_id: undefined, project_ids: projectIds });
    if (p.mode === 'hybrid') {
      const allowed = await this.findFiltered({ ...p, project_ids: projectIds });
      return hybridSearch(this.core, {
        query: p.query,
        projectIds,
        where,
        allowed: new Map(allowed.map((m) => [m.id, m])),
        limit,
      });
    }
    if (p.mode === 'semantic') {
      await this.core.requireModel();
      const [vector] = await this.core.embedding.embed([p.query]);
      const hits = await this.core.store.query(vector, where, limit);
      return {
        items: hits.map((h) => ({ memory: h.memory, score: round(1 - h.distance), channels: ['vector'] })),
      };
    }
    const terms = p.query
      .toLowerCase()
      .split(/\s+/)
      .filter((t) => t.length > 0);
    const all = await this.findFiltered({ ...p, project_ids: projectIds });
    const items = all
      .map((memory) => {
        const hay = `${memory.text} ${memory.source_ref.join(' ')} ${memory.id}`.toLowerCase();
        const hits = terms.filter((t) => hay.includes(t)).length;
        return { memory, score: round(hits / terms.length), channels: ['lexical' as const] };
      })
      .filter((x) => x.score === 1)
      .sort((a, b) => b.memory.created_at.localeCompare(a.memory.created_at))
      .slice(0, limit);
    return { items };
  }

  // ------------------------------------------------------------------ mutations

  /** Reads, mutates, writes (re-embedding a new text when asked), audits and announces one memory. */
  async change(
    id: string,
    by: string | undefined,
    action: AuditEntry['action'],
    mutate: (m: Memory) => Memory,
    opts: { reembed?: boolean; note?: string } = {},
  ): Promise<Memory> {
    const { core } = this;
    const before = await this.get(id);
    const now = core.now();
    const after = { ...mutate({ ...before }), updated_at: now };
    if (opts.reembed && after.text !== before.text) {
      await core.requireModel();
      const [vector] = await core.embedding.embed([after.text]);
      after.embedding_model = core.embedding.modelId;
      after.embedding_dim = vector.length;
      core.store.noteErased([id]); // the old text's rows leave Chroma's log at the next compaction
      await core.store.upsert([{ memory: after, vector }]);
      await core.store.eraseFromKept([id]); // an older model's copy holds the old text
    } else {
      await core.store.updateMetadata([after]);
    }
    core.audit.append([
      {
        at: now,
        action,
        memory_id: id,
        project_id: after.project_id,
        by: by ?? core.config.user,
        changes: diff(before, after),
        note: opts.note,
      },
    ]);
    core.notifyChanged([...new Set([before.project_id, after.project_id])], [id]);
    return after;
  }

  async confirm(p: FeedbackParams): Promise<Memory> {
    const by = p.by ?? this.core.config.user;
    // A confirmation is a person vouching for a text (docs/design.md, "Trust"): an agent cannot give one.
    if (isAgentName(by))
      throw new InvalidInputError('Only a person can confirm a memory; an agent can remember or mark wrong.');
    const confirmed = await this.change(p.id, by, 'confirm', (m) => ({
      ...m,
      status: 'confirmed',
      confirmed_by: by,
      // A person vouches for it now: the top tier, and what the firewall held is cleared (with its turns).
      tier: 'person',
      held: undefined,
      confidence_score: round(Math.max(m.confidence_score, Math.min(1, m.confidence_score + 0.1), 0.8)),
      // Confirming a possible change decides it: the memory it may change is superseded (below).
      ...(m.may_change ? { may_change: undefined, supersedes: m.may_change } : {}),
      // Confirming the older of a pair in review keeps it: it is no longer contested.
      contested_by: undefined,
      // A person decides what an agent flagged.
      flagged_by: undefined,
    }));
    if (confirmed.supersedes) await this.settleContest(confirmed.supersedes, confirmed.id, by, 'superseded');
    return confirmed;
  }

  /**
   * "Confirm All from AGENTS.md": every pending memory of the project imported from one file, confirmed by
   * a person; what the firewall held stays pending (it needs a confirmation of its own).
   */
  async confirmFile(p: ConfirmFileParams): Promise<ConfirmFileResult> {
    if (!p || typeof p.project_id !== 'string' || !p.project_id || typeof p.file !== 'string' || !p.file)
      throw new InvalidInputError(
        'confirmFile needs a project_id and the file its rules were imported from.',
      );
    const from = `file:${p.file}#`;
    const pending = (
      await this.core.store.find(buildWhere({ project_id: p.project_id, status: ['pending'] }))
    )
      .map((r) => r.memory)
      .filter((m) => m.source_ref.some((r) => r.startsWith(from)));
    const held = pending.filter((m) => m.held).map((m) => m.id);
    const confirmed: string[] = [];
    for (const m of pending.filter((x) => !x.held))
      confirmed.push((await this.confirm({ id: m.id, by: p.by })).id);
    return { confirmed, held };
  }

  /**
   * The older memory of a pair in review once the newer was decided: superseded by it (confirmed), or
   * no longer contested (the newer marked wrong). Nothing happens when it was decided otherwise meanwhile.
   */
  private async settleContest(
    olderId: string,
    newerId: string,
    by: string,
    outcome: 'superseded' | 'kept',
  ): Promise<void> {
    const [older] = await this.core.store.get([olderId]);
    if (!older || older.contested_by !== newerId) return;
    await this.change(
      olderId,
      by,
      'update',
      (m) =>
        outcome === 'superseded'
          ? { ...m, status: 'superseded', superseded_by: newerId, contested_by: undefined }
          : { ...m, contested_by: undefined },
      {
        note:
          outcome === 'superseded'
            ? `superseded by ${newerId}: the change was confirmed in review`
            : `kept: ${newerId}, which may have changed it, was marked wrong`,
      },
    );
  }

  async markWrong(p: FeedbackParams): Promise<Memory> {
    const by = p.by ?? this.core.config.user;
    if (isAgentName(by)) {
      const target = await this.get(p.id);
      // A global memory is recalled in every project: an agent working in one cannot take it from all of them.
      if (target.project_id === GLOBAL_PROJECT)
        throw new InvalidInputError(
          `${p.id} is a global memory: only a person can mark it wrong (in the editor or with mnemo mark-wrong).`,
        );
      // An agent never marks wrong what a person confirmed: it is flagged for that person's review instead.
      if (target.status === 'confirmed')
        return this.change(p.id, by, 'report', (m) => applyReport(m, 'wrong', by), {
          note: reportNote(target, 'wrong', undefined),
        });
    }
    const at = this.core.now();
    const wrong = await this.change(p.id, by, 'wrong', (m) => ({
      ...m,
      status: 'wrong',
      confidence_score: 0,
      wrong_by: by,
      wrong_at: at,
      contested_by: undefined,
      flagged_by: undefined,
      // Whoever confirmed it is told, in their editor, the next time they open the project.
      ...(m.confirmed_by && m.confirmed_by !== by ? { notify_user: m.confirmed_by } : {}),
    }));
    if (wrong.may_change) await this.settleContest(wrong.may_change, wrong.id, by, 'kept');
    await this.disownTurns(wrong);
    return wrong;
  }

  /**
   * Links every turn that says a memory marked wrong to it (turnsSaying.ts): recall never quotes
   * a turn linked to a wrong memory, whichever copy of the conversation it is in.
   */
  private async disownTurns(wrong: Memory): Promise<void> {
    const turns = (await turnsSaying(this.core, wrong)).filter((e) => !e.memory_ids.includes(wrong.id));
    await this.core.episodes.updateMetadata(
      turns.map((e) => ({ ...e, memory_ids: [...e.memory_ids, wrong.id] })),
    );
  }

  async update(p: UpdateParams): Promise<Memory> {
    if (!p || !p.patch || typeof p.patch !== 'object') throw new InvalidInputError('update needs a patch.');
    const patch = p.patch;
    if (patch.text !== undefined && (typeof patch.text !== 'string' || !patch.text.trim()))
      throw new InvalidInputError('The new text is empty.');
    if (
      patch.confidence_score !== undefined &&
      !(patch.confidence_score >= 0 && patch.confidence_score <= 1)
    ) {
      throw new InvalidInputError('Confidence must be between 0 and 1.');
    }
    if (patch.category !== undefined && !isCategory(patch.category))
      throw new InvalidInputError(`Unknown category "${String(patch.category)}".`);
    const text = patch.text !== undefined ? (await redactText(patch.text.trim())).text : undefined;
    const by = p.by ?? this.core.config.user;
    if (isAgentName(by)) throw new InvalidInputError('Only a person can edit a memory.');
    const now = this.core.now();
    return this.change(
      p.id,
      by,
      'update',
      (m) => ({
        ...m,
        // Everything derived from the text follows it: the times it mentions; the turns said before the
        // edit no longer say the current fact (edited_at, recall/recall.ts). A person wrote it: top tier.
        ...(text !== undefined && text !== m.text
          ? {
              text,
              times: timesOf(text, m.occurred_at ?? m.created_at),
              edited_at: now,
              tier: 'person' as const,
              held: undefined,
            }
          : {}),
        ...(patch.confidence_score !== undefined ? { confidence_score: round(patch.confidence_score) } : {}),
        ...(patch.is_actionable !== undefined ? { is_actionable: !!patch.is_actionable } : {}),
        ...(patch.source_ref !== undefined ? { source_ref: patch.source_ref.map(String) } : {}),
        ...(patch.category !== undefined ? { category: patch.category } : {}),
        ...(patch.status !== undefined ? { status: patch.status } : {}),
      }),
      { reembed: true },
    );
  }

  async promote(p: FeedbackParams): Promise<Memory> {
    const m = await this.get(p.id);
    if (m.project_id === GLOBAL_PROJECT) return m;
    return this.change(
      p.id,
      p.by,
      'promote',
      (x) => ({ ...x, project_id: GLOBAL_PROJECT, promoted_from: x.project_id }),
      {
        note: `promoted from ${m.project_id} to global`,
      },
    );
  }

  async delete(ids: string[], by?: string): Promise<number> {
    const { core } = this;
    if (!Array.isArray(ids) || ids.length === 0) throw new InvalidInputError('No memory ids to delete.');
    const found = await core.store.get(ids);
    if (found.length === 0) throw new NotFoundError(`No memory with id ${ids[0]}.`);
    // What a person deleted does not stay in the evidence: the turns that say it go with it (for many
    // memories at once, a clean, the turns of their own messages only: one read each).
    const turns = new Set<string>();
    const thorough = found.length <= THOROUGH_DELETE;
    for (const m of found) for (const e of await turnsSaying(core, m, thorough)) turns.add(e.id);
    await core.store.delete(found.map((m) => m.id));
    await core.episodes.delete([...turns]);
    this.auditDeleted(found, by);
    await this.eraseFromLedger(() => core.ledger.erase(found.map((m) => m.id)));
    core.notifyChanged(
      [...new Set(found.map((m) => m.project_id))],
      found.map((m) => m.id),
    );
    return found.length;
  }

  /** One audit `delete` per memory removed, with its content going to null. */
  private auditDeleted(removed: Memory[], by: string | undefined, note?: string): void {
    const { core } = this;
    const now = core.now();
    core.audit.append(
      removed.map((m) => ({
        at: now,
        action: 'delete' as const,
        memory_id: m.id,
        project_id: m.project_id,
        by: by ?? core.config.user,
        changes: snapshot(m, true),
        ...(note ? { note } : {}),
      })),
    );
  }

  /** The ledger forgets what was deleted; a failure is logged (the memory is gone: only its id is left there). */
  private async eraseFromLedger(erase: () => Promise<number>): Promise<void> {
    try {
      await erase();
    } catch (e) {
      this.core.log.error(`The ledger of what agents were shown could not be erased: ${errorMessage(e)}`);
    }
  }

  /**
   * Per-project wipe: its captures still queued are dropped and the capture queue file rewritten (issue 39),
   * then every memory of the project (any status), its episodes and its lexical rows are deleted; one audit
   * `delete` per memory with its content erased (issue 17: nothing of the project stays recallable). Other
   * projects, and global memories promoted from it, are untouched.
   */
  async wipeProject(
    p: WipeProjectParams,
    forgetCaptures: (project: string) => number = () => 0,
  ): Promise<WipeProjectResult> {
    const { core } = this;
    if (!p || typeof p.project_id !== 'string' || !p.project_id.trim())
      throw new InvalidInputError('Which project? wipe needs a project_id.');
    const project = p.project_id;
    // Its captures still waiting would bring it back; they and the queue file's copies of its text go first.
    forgetCaptures(project);
    const ids = (await core.store.find(buildWhere({ project_id: project }))).map((r) => r.memory);
    for (let i = 0; i < ids.length; i += 1000) {
      const batch = ids.slice(i, i + 1000);
      await core.store.delete(batch.map((m) => m.id));
      this.auditDeleted(batch, p.by, 'project wiped');
    }
    const episodes = await core.episodes.deleteProject(project);
    await core.store.lexical.removeProject(project);
    await this.eraseFromLedger(() => core.ledger.wipeProject(project));
    core.notifyChanged(
      [project],
      ids.map((m) => m.id),
    );
    return { memories: ids.length, episodes };
  }

  /**
   * An agent's report on a memory it was served (MCP `report`): counted once per recall of the last day
   * that served it to this client, recorded in the ledger first (a crash never counts it twice), then
   * applied and audited (lifecycle/report.ts).
   */
  report(p: ReportParams): Promise<ReportResult> {
    const run = this.reporting.then(() => this.reportNow(p));
    this.reporting = run.catch(() => undefined);
    return run;
  }

  private async reportNow(p: ReportParams): Promise<ReportResult> {
    const { core } = this;
    const memory = await this.get(p.id);
    const refused = reportRefusal(memory);
    if (refused) throw new InvalidInputError(refused);
    const since = new Date(core.clock().getTime() - REPORT_WINDOW_MS).toISOString();
    const served = core.ledger.unreported(p.id, p.served_to, since);
    if (served === 'none')
      throw new InvalidInputError(
        `${p.id} was not served to ${p.served_to.name} in the last 24 hours; report only what recall, search or get gave you.`,
      );
    if (served === 'reported') return { memory, counted: false };
    core.ledger.appendReport({
      at: core.now(),
      entry: served.entry.id,
      memory_id: p.id,
      project_id: memory.project_id,
      verdict: p.verdict,
      served_to: p.served_to,
    });
    const why = p.note?.trim() ? cutText((await redactText(p.note.trim())).text, 500) : undefined;
    const after = await this.change(p.id, p.by, 'report', (m) => applyReport(m, p.verdict, p.by), {
      note: reportNote(memory, p.verdict, served.entry.id, why),
    });
    return { memory: after, counted: true };
  }

  auditList(p: { memory_id?: string; project_id?: string; limit?: number }): AuditEntry[] {
    return this.core.audit.query(p);
  }

  // ------------------------------------------------------------------ notices

  /** Memories this user confirmed that someone else has marked wrong since. */
  async notices(p: { user?: string; project_ids?: string[] }): Promise<Notice[]> {
    const user = p.user ?? this.core.config.user;
    const rows = await this.core.store.find(buildWhere({ project_ids: p.project_ids, status: ['wrong'] }));
    return rows
      .map((r) => r.memory)
      .filter((m) => m.notify_user === user)
      .map((memory) => ({
        memory,
        by: memory.wrong_by ?? 'someone',
        at: memory.wrong_at ?? memory.updated_at,
      }));
  }

  async ackNotices(p: { ids: string[]; user?: string }): Promise<number> {
    const user = p.user ?? this.core.config.user;
    const found = (await this.core.store.get(p.ids ?? [])).filter((m) => m.notify_user === user);
    await this.core.store.updateMetadata(found.map((m) => ({ ...m, notify_user: undefined })));
    return found.length;
  }
}
