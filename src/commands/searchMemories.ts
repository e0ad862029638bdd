/**
 * `mnemo.searchMemories`: a QuickPick that searches as you type — hybrid (by meaning and by words, cut
 * relative to the best match) or keyword only (title-bar toggle) — over the workspace's projects, wrong and
 * archived memories left out unless asked (eye button), with filters for project, source type and time
 * range; an empty box lists the latest memories. Choosing a result reveals it in the Memories tree
 * (TreeView.reveal through getParent) and opens its details beside, the focus left on the tree row. `mnemo.revealMemory` reveals a memory by id.
 */
import * as vscode from 'vscode';
import { SOURCE_TYPES, type Memory, type SourceType } from '../../sidecar/model';
import { GetRequest, ListRequest, SearchRequest, type SearchParams } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { describeError, logFailure } from '../errors';
import { projectLabel, workspaceProjectIds, workspaceProjects } from '../projects';
import { daysAgoUtc } from '../time';
import { CATEGORY_LABEL, description, matchedBy, shortText, SOURCE_LABEL } from '../views/present';
import { Command } from '../commandIds';

type Mode = Extract<SearchParams['mode'], 'hybrid' | 'keyword'>;

/** Memories listed when the box is empty: the newest of the workspace's projects. */
const RECENT = 20;
/** Statuses searched unless "include wrong and archived" is on. */
const IN_USE = ['active', 'pending', 'confirmed'] as const;
const ALL_PROJECTS = '\u0000all';

interface Filters {
  /** A project, ALL_PROJECTS for the whole store, or undefined for the workspace's projects. */
  projectId?: string;
  sourceType?: SourceType;
  /** Days back, or undefined for any time. */
  days?: number;
}

const TIME_RANGES: { label: string; days?: number }[] = [
  { label: 'Any time' },
  { label: 'Last 24 hours', days: 1 },
  { label: 'Last 7 days', days: 7 },
  { label: 'Last 30 days', days: 30 },
  { label: 'Last year', days: 365 },
];

interface ResultPick extends vscode.QuickPickItem {
  memory?: Memory;
}

/** The search options that outlive one QuickPick: the next search starts where the last one was left. */
interface SearchOptions {
  mode: Mode;
  includeRetired: boolean;
  filters: Filters;
}

export function register(ctx: Ctx, views: Views): void {
  const options: SearchOptions = { mode: 'hybrid', includeRetired: false, filters: {} };

  ctx.registerCommand(Command.revealMemory, async (arg?: unknown) => {
    const node = arg as { memory?: Memory; id?: string } | undefined;
    if (node?.memory) {
      await views.reveal(node.memory);
      return node.memory;
    }
    const id = typeof arg === 'string' ? arg : node?.id;
    if (!id) return vscode.commands.executeCommand(Command.searchMemories);
    const memory = await ctx.request(GetRequest, { id });
    await views.reveal(memory);
    return memory;
  });

  ctx.registerCommand(Command.searchMemories, async (initialQuery?: unknown) => {
    await ctx.ready();
    const memory = await new SearchPick(
      ctx,
      options,
      typeof initialQuery === 'string' ? initialQuery : '',
    ).run();
    if (memory)
      // Enter shows the memory where it lives (the tree, outlined) and what it is (its details beside,
      // the keyboard focus left on the tree row).
      void views
        .reveal(memory)
        .then(() => views.details.show(memory, true))
        .catch((err) => ctx.reportError(err, 'Reveal memory'));
    return memory;
  });
}

const projectButton: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('repo'),
  tooltip: 'Filter by project',
};
const sourceButton: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('filter'),
  tooltip: 'Filter by source type',
};
const timeButton: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('calendar'),
  tooltip: 'Filter by time range',
};

/** One Search Memories QuickPick: searches as the person types; resolves with the memory chosen. */
class SearchPick {
  private readonly qp = vscode.window.createQuickPick<ResultPick>();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  /** A filter's own pick is open: the search's hiding is not its end. */
  private sub = false;

  constructor(
    private readonly ctx: Ctx,
    private readonly options: SearchOptions,
    initialQuery: string,
  ) {
    this.qp.matchOnDescription = true;
    this.qp.matchOnDetail = true;
    this.qp.ignoreFocusOut = false;
    if (initialQuery) this.qp.value = initialQuery;
  }

  run(): Promise<Memory | undefined> {
    const { qp } = this;
    return new Promise<Memory | undefined>((resolve) => {
      let finished = false;
      const finish = (m: Memory | undefined): void => {
        if (finished) return;
        finished = true;
        if (this.timer) clearTimeout(this.timer);
        qp.dispose();
        resolve(m);
      };
      qp.onDidChangeValue(() => this.search());
      qp.onDidTriggerButton(async (button) => {
        await this.pressed(button);
        this.decorate();
        this.search();
      });
      qp.onDidAccept(() => {
        const memory = qp.activeItems[0]?.memory;
        if (memory) finish(memory);
      });
      qp.onDidHide(() => {
        if (!this.sub) finish(undefined);
      });
      this.decorate();
      qp.show();
      this.search();
    });
  }

  private modeButton(): vscode.QuickInputButton {
    return {
      iconPath: new vscode.ThemeIcon(this.options.mode === 'hybrid' ? 'sparkle' : 'whole-word'),
      tooltip:
        this.options.mode === 'hybrid'
          ? 'Searching by meaning and words — switch to exact keywords'
          : 'Searching by exact keywords — switch to meaning and words',
    };
  }

  private retiredButton(): vscode.QuickInputButton {
    return {
      iconPath: new vscode.ThemeIcon(this.options.includeRetired ? 'eye' : 'eye-closed'),
      tooltip: this.options.includeRetired
        ? 'Wrong and archived memories included — leave them out'
        : 'Wrong and archived memories left out — include them',
    };
  }

  /** The title says what is searched and how; the buttons show the current choices. */
  private decorate(): void {
    const { mode, includeRetired, filters } = this.options;
    const f = [
      filters.projectId === ALL_PROJECTS
        ? 'all projects'
        : filters.projectId
          ? projectLabel(filters.projectId)
          : "this workspace's projects",
      filters.sourceType ? SOURCE_LABEL[filters.sourceType] : 'all sources',
      TIME_RANGES.find((t) => t.days === filters.days)?.label.toLowerCase() ?? 'any time',
      includeRetired ? 'with wrong and archived' : '',
    ]
      .filter(Boolean)
      .join(' · ');
    this.qp.title = `Search Memories (${mode === 'hybrid' ? 'meaning and words' : 'exact keywords'}) — ${f}`;
    this.qp.placeholder =
      mode === 'hybrid' ? 'Describe what you are looking for (empty: the latest)' : 'Type words to find';
    this.qp.buttons = [this.modeButton(), this.retiredButton(), projectButton, sourceButton, timeButton];
  }

  /** A title-bar button: a filter's pick, the eye (wrong and archived), or the mode. */
  private async pressed(button: vscode.QuickInputButton): Promise<void> {
    const { filters } = this.options;
    if (button === projectButton) {
      const choice = await this.subPick(
        [
          { label: "This workspace's projects", projectId: undefined as string | undefined },
          {
            label: 'All projects',
            description: 'also those not open here (never recalled here)',
            projectId: ALL_PROJECTS as string | undefined,
          },
          ...workspaceProjects().map((p) => ({
            label: p.label,
            description: p.projectId,
            projectId: p.projectId,
          })),
        ],
        'Search in which project?',
      );
      if (choice) filters.projectId = choice.projectId;
    } else if (button === sourceButton) {
      const choice = await this.subPick(
        [
          { label: 'All sources', sourceType: undefined as SourceType | undefined },
          ...SOURCE_TYPES.map((s) => ({
            label: SOURCE_LABEL[s],
            sourceType: s as SourceType | undefined,
          })),
        ],
        'Which source type?',
      );
      if (choice) filters.sourceType = choice.sourceType;
    } else if (button === timeButton) {
      const choice = await this.subPick(
        TIME_RANGES.map((t) => ({ label: t.label, days: t.days })),
        'Created when?',
      );
      if (choice) filters.days = choice.days;
    } else if (button.tooltip === this.retiredButton().tooltip) {
      this.options.includeRetired = !this.options.includeRetired;
    } else {
      this.options.mode = this.options.mode === 'keyword' ? 'hybrid' : 'keyword';
    }
  }

  /** A filter's own pick over the search, which shows again when it closes. */
  private async subPick<T extends vscode.QuickPickItem>(
    items: T[],
    placeHolder: string,
  ): Promise<T | undefined> {
    this.sub = true;
    try {
      return await vscode.window.showQuickPick(items, { placeHolder });
    } finally {
      this.sub = false;
      this.qp.show();
    }
  }

  /** What the filters ask for (the workspace's projects unless one or all were chosen). */
  private scope(): Omit<SearchParams, 'query' | 'mode'> {
    const { filters, includeRetired } = this.options;
    return {
      project_id: filters.projectId && filters.projectId !== ALL_PROJECTS ? filters.projectId : undefined,
      project_ids: filters.projectId ? undefined : workspaceProjectIds(),
      include_global: filters.projectId && filters.projectId !== ALL_PROJECTS ? true : undefined,
      source_type: filters.sourceType,
      since: filters.days ? daysAgoUtc(filters.days) : undefined,
      status: includeRetired ? undefined : [...IN_USE],
    };
  }

  /** The newest memories of the scope (an empty box). */
  private async recent(scope: Omit<SearchParams, 'query' | 'mode'>): Promise<Memory[]> {
    const projects = scope.project_ids ?? (scope.project_id ? [scope.project_id] : [undefined]);
    const pages = await Promise.all(
      projects.map((project_id) =>
        this.ctx.request(ListRequest, {
          project_id,
          include_global: false,
          status: scope.status,
          source_type: scope.source_type,
          since: scope.since,
          limit: RECENT,
        }),
      ),
    );
    return pages
      .flatMap((p) => p.items)
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, RECENT);
  }

  /** Searches after a short pause in typing; an answer to an older query is dropped. */
  private search(): void {
    const { qp, ctx } = this;
    const mine = ++this.seq;
    const query = qp.value.trim();
    const { mode } = this.options;
    if (this.timer) clearTimeout(this.timer);
    qp.busy = true;
    const scope = this.scope();
    this.timer = setTimeout(
      () =>
        void (async () => {
          try {
            const result = query
              ? await ctx.request(SearchRequest, { ...scope, query, mode, limit: 50 })
              : { items: (await this.recent(scope)).map((memory) => ({ memory, channels: undefined })) };
            if (mine === this.seq) qp.items = resultItems(result.items, query);
          } catch (err) {
            if (mine !== this.seq) return;
            logFailure(ctx.log, `Search`, err);
            qp.items = [
              {
                label: '$(warning) Search failed',
                detail: `${describeError(err)}${mode === 'hybrid' ? ' Exact keyword search works without the model: use the first button.' : ''}`,
                alwaysShow: true,
              },
            ];
          } finally {
            if (mine === this.seq) qp.busy = false;
          }
        })(),
      mode === 'hybrid' && query ? 300 : 150,
    );
  }
}

/** The rows of a result: each memory with where it lives and why it matched; a row saying so when none. */
function resultItems(
  found: { memory: Memory; channels?: Parameters<typeof matchedBy>[0] }[],
  query: string,
): ResultPick[] {
  const items: ResultPick[] = found.map(({ memory, channels }) => ({
    label: shortText(memory.text, 110),
    description: `${projectLabel(memory.project_id)} · ${CATEGORY_LABEL[memory.category] ?? memory.category} · ${SOURCE_LABEL[memory.source_type] ?? memory.source_type}`,
    detail: [matchedBy(channels), description(memory)].filter(Boolean).join(' · '),
    memory,
    alwaysShow: true,
  }));
  if (items.length)
    return query ? items : [{ label: 'Latest memories', kind: vscode.QuickPickItemKind.Separator }, ...items];
  return [
    {
      label: query ? 'No memories found' : 'No memories yet',
      detail: query
        ? 'Try other words, wider filters, or the eye button to include wrong and archived ones.'
        : 'Remember a selection, or work in the terminal: Mnemo learns as you go.',
      alwaysShow: true,
    },
  ];
}
