/**
 * The commands that read and judge memories: ingest, recall, list, show, ledger, confirm / mark-wrong,
 * review, stats, audit. Rows of the command table (commands/index.ts).
 */
import { resolveConfig } from '../../config';
import {
  GLOBAL_PROJECT,
  isSourceType,
  isStatus,
  tierOf,
  type MemoryStatus,
  type SourceType,
} from '../../model';
import { oneLine } from '../../shared/text';
import { MAX_KEPT_MESSAGE_CHARS, MESSAGE_KEPT_HEAD, MESSAGE_KEPT_TAIL } from '../../pipeline/normalize';
import { ledgerCommand, servedSummary } from '../../ledgerCommand';
import type { CliCommand } from '../args';
import {
  UsageError,
  describe,
  out,
  parseTranscript,
  positiveInt,
  printable,
  readTextInput,
  refuseGlobalProject,
  shortDate,
  withService,
} from '../shared';

export const ingest: CliCommand = {
  names: ['ingest'],
  usage: `  ingest [--project P] [--source-type T] [--explain] FILE|-   learn from a transcript (JSON messages)`,
  async run({ values, positionals, cfg, project }) {
    const file = positionals[0];
    if (!file) throw new UsageError('ingest needs a transcript file (or - for stdin).');
    const sourceType = (values['source-type'] ?? 'chat') as SourceType;
    if (!isSourceType(sourceType)) throw new UsageError(`Unknown source type "${sourceType}".`);
    refuseGlobalProject(project, 'ingest');
    const text = readTextInput(file);
    const messages = parseTranscript(text, file === '-' ? 'stdin' : file);
    const report = await withService(cfg, (svc) =>
      svc.ingest({
        project_id: project,
        source_type: sourceType,
        messages,
        source_ref: file === '-' ? [] : [`file:${file}`],
        explain: values.explain,
      }),
    );
    if (values.json) {
      out(JSON.stringify(report, null, 2));
      return 0;
    }
    out(
      `Project ${report.project_id}: ${report.stored} stored, ${report.refreshed} refreshed, ${report.pending} pending review, ${report.dropped} dropped.`,
    );
    // Nothing of a long transcript is cut: say how much was read.
    out(
      `Read all ${report.messages_read} message${report.messages_read === 1 ? '' : 's'}, ${report.messages_cut ? `${report.messages_cut} of them cut to ${MESSAGE_KEPT_HEAD.toLocaleString('en-US')} characters from the start and ${MESSAGE_KEPT_TAIL.toLocaleString('en-US')} from the end (longer than ${MAX_KEPT_MESSAGE_CHARS.toLocaleString('en-US')}; a note marks the cut), the rest` : 'each'} whole${report.messages_empty ? ` (${report.messages_empty} more had no text)` : ''}${report.llm_windows ? `; the LLM read it in ${report.llm_windows} window${report.llm_windows === 1 ? '' : 's'}` : ''}.`,
    );
    if (report.skipped) out(`Skipped: ${report.skipped}`);
    if (report.episodes_error) process.stderr.write(`mnemo: ${report.episodes_error}\n`);
    for (const d of report.decisions) {
      if (d.outcome === 'dropped' && !values.explain) continue;
      const meta =
        d.outcome === 'dropped'
          ? ''
          : ` (${[d.category, d.is_actionable ? 'actionable' : '', d.source_ref?.length ? `ref ${d.source_ref.join(', ')}` : ''].filter(Boolean).join(', ')})`;
      out(`  ${d.outcome.padEnd(9)} ${d.id ? d.id + ' ' : ''}${oneLine(d.text)}${meta}`);
      if (values.explain) out(`            why: ${oneLine(d.reason)}`);
    }
    return 0;
  },
};

export const recall: CliCommand = {
  names: ['recall'],
  usage: `  recall [--project P] [--top-k K] [--json] QUERY              recall memories for a query`,
  async run({ values, positionals, cfg, project }) {
    const query = positionals.join(' ').trim();
    if (!query) throw new UsageError('recall needs a query.');
    const topK = values['top-k'] ? Number(values['top-k']) : undefined;
    if (topK !== undefined && !(Number.isInteger(topK) && topK > 0))
      throw new UsageError('--top-k must be a positive whole number.');
    const res = await withService(cfg, (svc) =>
      svc.recall({
        query,
        project_ids: [project],
        top_k: topK,
        locale: process.env.LANG,
        served_to: { surface: 'cli', name: 'cli' },
      }),
    );
    if (values.json) {
      out(
        JSON.stringify(
          res.items.map((i) => ({
            id: i.memory.id,
            kind: i.kind,
            text: i.memory.text,
            score: i.score,
            channel: i.channel,
            channels: i.channels,
            category: i.memory.category,
            source_type: i.memory.source_type,
            source_ref: i.memory.source_ref,
            confidence_score: i.memory.confidence_score,
            status: i.memory.status,
            created_at: i.memory.created_at,
            project_id: i.memory.project_id,
            tier: tierOf(i.memory),
            ...(i.memory.held ? { held: i.memory.held } : {}),
            ...(i.memory.speaker ? { speaker: i.memory.speaker } : {}),
            ...(i.memory.occurred_at ? { occurred_at: i.memory.occurred_at } : {}),
            ...(i.memory.times?.length ? { times: i.memory.times } : {}),
          })),
          null,
          2,
        ),
      );
    } else {
      out(res.block || 'No memories recalled.');
    }
    return 0;
  },
};

export const list: CliCommand = {
  names: ['list'],
  usage: `  list [--project P] [--status S] [--json]                      list memories, newest first`,
  async run({ values, cfg, project }) {
    const status = values.status ? (values.status.split(',') as MemoryStatus[]) : undefined;
    if (status && !status.every(isStatus)) throw new UsageError(`Unknown status in "${values.status}".`);
    const limit = positiveInt('--limit', values.limit, 200);
    const res = await withService(cfg, (svc) =>
      svc.list({
        project_id: values.project || process.env.MNEMO_PROJECT ? project : undefined,
        status,
        limit,
      }),
    );
    if (values.json) out(JSON.stringify(res, null, 2));
    else {
      for (const m of res.items) out(describe(m));
      out(
        `${res.total} memor${res.total === 1 ? 'y' : 'ies'}${res.items.length < res.total ? ` (showing ${res.items.length})` : ''}.`,
      );
    }
    return 0;
  },
};

export const show: CliCommand = {
  names: ['show'],
  usage: `  show ID                                                       one memory with its metadata, and when and to whom it was served`,
  async run({ positionals, cfg }) {
    const id = positionals[0];
    if (!id) throw new UsageError('show needs a memory id.');
    const shown = await withService(cfg, async (svc) => ({
      ...(await svc.get(id)),
      served: servedSummary(await svc.ledgerList({ memory_id: id, limit: 20 })),
    }));
    out(JSON.stringify(shown, null, 2));
    return 0;
  },
};

export const ledger: CliCommand = {
  names: ['ledger'],
  usage: `  ledger [ID] [--limit N] [--client C] [--json]                 what agents and people were shown (recalls served), newest first`,
  async run({ values, positionals, cfg, project }) {
    ledgerCommand(
      {
        dataDir: resolveConfig(cfg).dataDir,
        limit: positiveInt('--limit', values.limit, 50),
        client: values.client,
        memoryId: positionals[0],
        projectIds: values.project ? [project] : undefined,
        json: values.json,
      },
      out,
      printable,
    );
    return 0;
  },
};

export const confirm: CliCommand = {
  names: ['confirm', 'mark-wrong'],
  usage: `  confirm ID | mark-wrong ID                                    feedback on a memory
  confirm --file FILE [--project P]                             confirm every pending rule imported from FILE (not what the firewall held)`,
  async run({ command, values, positionals, cfg, project }) {
    if (command === 'confirm' && values.file && !positionals[0]) {
      const file = values.file;
      const r = await withService(cfg, (svc) => svc.confirmFile({ project_id: project, file }));
      out(
        `Confirmed ${r.confirmed.length} rule${r.confirmed.length === 1 ? '' : 's'} imported from ${file} in ${project}.${r.held.length ? ` ${r.held.length} held by the firewall wait for a confirmation each: ${r.held.join(', ')}.` : ''}`,
      );
      return 0;
    }
    const id = positionals[0];
    if (!id) throw new UsageError(`${command} needs a memory id.`);
    const m = await withService(cfg, (svc) =>
      command === 'confirm' ? svc.confirm({ id }) : svc.markWrong({ id }),
    );
    out(`${m.id} is now ${m.status} (confidence ${m.confidence_score}).`);
    return 0;
  },
};

export const review: CliCommand = {
  names: ['review'],
  usage: `  review [--project P]                                          today's digest: top 10 pending memories`,
  async run({ values, cfg, project }) {
    const res = await withService(cfg, (svc) =>
      svc.list({ project_id: values.project ? project : undefined, status: ['pending'], limit: 10_000 }),
    );
    const top = [...res.items].sort((a, b) => b.score - a.score).slice(0, 10);
    out(`Review digest: ${res.total} pending, top ${top.length} by score.`);
    for (const m of top)
      out(
        `  ${m.id}  score ${m.score.toFixed(1)}  ${tierOf(m)}  ${m.project_id === GLOBAL_PROJECT ? '(global) ' : ''}${oneLine(m.text)}\n      why: ${oneLine(m.held ?? m.reason)}`,
      );
    return 0;
  },
};

export const stats: CliCommand = {
  names: ['stats'],
  usage: `  stats [--json]                                                counts per project`,
  async run({ values, cfg }) {
    const s = await withService(cfg, (svc) => svc.stats(values.project));
    if (values.json) out(JSON.stringify(s, null, 2));
    else {
      out(
        `${s.total} memories in use${s.retired ? ` (${s.retired} more wrong or archived)` : ''}; embedding model ${s.embedding_model}; ${s.chroma}`,
      );
      if (s.llm_tokens?.extractions)
        out(
          `LLM: ${s.llm_tokens.extractions} extraction(s), ${s.llm_tokens.prompt} prompt + ${s.llm_tokens.completion} completion tokens`,
        );
      for (const p of s.projects) {
        out(
          `  ${p.project_id}: ${p.total} in use, ${p.new_7d} new in 7 days, ${p.actionable} actionable, ${p.pending} pending; ${p.by_status.wrong} wrong, ${p.by_status.archived} archived`,
        );
      }
    }
    return 0;
  },
};

export const audit: CliCommand = {
  names: ['audit'],
  usage: `  audit [ID] [--project P]                                      the audit log of a memory or project`,
  async run({ values, positionals, cfg, project }) {
    const id = positionals[0];
    const entries = await withService(cfg, async (svc) =>
      svc.auditList({
        memory_id: id,
        project_id: id ? undefined : values.project ? project : undefined,
        limit: 200,
      }),
    );
    if (values.json) out(JSON.stringify(entries, null, 2));
    else
      for (const e of entries) {
        const changes = Object.entries(e.changes ?? {})
          .map(([k, [a, b]]) => `${k}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`)
          .join('; ');
        out(
          `${shortDate(e.at)}  ${e.action.padEnd(8)} ${e.memory_id ?? ''}  by ${e.by}${changes ? `  ${changes}` : ''}${e.note ? `  (${e.note})` : ''}`,
        );
      }
    return 0;
  },
};
