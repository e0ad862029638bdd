/**
 * `mnemo.searchMemories`: a QuickPick that searches as you type — keyword or semantic (title-bar toggle
 * button) — with filters for project, source type and time range; choosing a result reveals it in the
 * Memories tree (TreeView.reveal through getParent). `mnemo.revealMemory` reveals a memory by id.
 */
import * as vscode from 'vscode';
import { SOURCE_TYPES, type Memory, type SourceType } from '../../sidecar/model';
import { GetRequest, SearchRequest, type SearchParams } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { describeError } from '../errors';
import { projectLabel, workspaceProjects } from '../projects';
import { daysAgoUtc } from '../time';
import { CATEGORY_LABEL, description, shortText, SOURCE_LABEL } from '../views/present';
import { Command } from '../commandIds';

type Mode = SearchParams['mode'];

interface Filters {
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

export function register(ctx: Ctx, views: Views): void {
  let mode: Mode = 'keyword';
  const filters: Filters = {};

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
    const qp = vscode.window.createQuickPick<ResultPick>();
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.ignoreFocusOut = false;
    if (typeof initialQuery === 'string') qp.value = initialQuery;

    const modeButton = (): vscode.QuickInputButton => ({
      iconPath: new vscode.ThemeIcon(mode === 'semantic' ? 'sparkle' : 'whole-word'),
      tooltip:
        mode === 'semantic'
          ? 'Searching by meaning — switch to keyword search'
          : 'Searching by keyword — switch to search by meaning',
    });
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

    const decorate = (): void => {
      const f = [
        filters.projectId ? projectLabel(filters.projectId) : 'all projects',
        filters.sourceType ? SOURCE_LABEL[filters.sourceType] : 'all sources',
        TIME_RANGES.find((t) => t.days === filters.days)?.label.toLowerCase() ?? 'any time',
      ].join(' · ');
      qp.title = `Search Memories (${mode === 'semantic' ? 'by meaning' : 'keyword'}) — ${f}`;
      qp.placeholder = mode === 'semantic' ? 'Describe what you are looking for' : 'Type words to find';
      qp.buttons = [modeButton(), projectButton, sourceButton, timeButton];
    };

    let seq = 0;
    let timer: NodeJS.Timeout | undefined;
    const search = (): void => {
      const mine = ++seq;
      const query = qp.value.trim();
      if (timer) clearTimeout(timer);
      if (!query) {
        qp.items = [];
        qp.busy = false;
        return;
      }
      qp.busy = true;
      timer = setTimeout(
        () =>
          void (async () => {
            try {
              const result = await ctx.request(SearchRequest, {
                query,
                mode,
                limit: 50,
                project_id: filters.projectId,
                include_global: filters.projectId ? true : undefined,
                source_type: filters.sourceType,
                since: filters.days ? daysAgoUtc(filters.days) : undefined,
              });
              if (mine !== seq) return;
              qp.items = result.items.length
                ? result.items.map(({ memory, score }) => ({
                    label: shortText(memory.text, 110),
                    description: `${projectLabel(memory.project_id)} · ${CATEGORY_LABEL[memory.category] ?? memory.category} · ${SOURCE_LABEL[memory.source_type] ?? memory.source_type}`,
                    detail: `${mode === 'semantic' ? `similarity ${score.toFixed(2)} · ` : ''}${description(memory)}`,
                    memory,
                    alwaysShow: true,
                  }))
                : [
                    {
                      label: 'No memories found',
                      detail: 'Try other words, the other search mode, or wider filters.',
                      alwaysShow: true,
                    },
                  ];
            } catch (err) {
              if (mine !== seq) return;
              ctx.log.warn(
                `Search failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
              );
              qp.items = [
                {
                  label: '$(warning) Search failed',
                  detail: `${describeError(err)}${mode === 'semantic' ? ' Keyword search works without the model: use the toggle button.' : ''}`,
                  alwaysShow: true,
                },
              ];
            } finally {
              if (mine === seq) qp.busy = false;
            }
          })(),
        mode === 'semantic' ? 350 : 150,
      );
    };

    let sub = false;
    const subPick = async <T extends vscode.QuickPickItem>(
      items: T[],
      placeHolder: string,
    ): Promise<T | undefined> => {
      sub = true;
      try {
        return await vscode.window.showQuickPick(items, { placeHolder });
      } finally {
        sub = false;
        qp.show();
      }
    };

    return new Promise<Memory | undefined>((resolve) => {
      let finished = false;
      const finish = (m: Memory | undefined): void => {
        if (finished) return;
        finished = true;
        if (timer) clearTimeout(timer);
        qp.dispose();
        resolve(m);
      };
      qp.onDidChangeValue(() => search());
      qp.onDidTriggerButton(async (button) => {
        if (button === projectButton) {
          const choice = await subPick(
            [
              { label: 'All projects', projectId: undefined as string | undefined },
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
          const choice = await subPick(
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
          const choice = await subPick(
            TIME_RANGES.map((t) => ({ label: t.label, days: t.days })),
            'Created when?',
          );
          if (choice) filters.days = choice.days;
        } else {
          mode = mode === 'keyword' ? 'semantic' : 'keyword';
        }
        decorate();
        search();
      });
      qp.onDidAccept(() => {
        const memory = qp.activeItems[0]?.memory;
        if (!memory) return;
        finish(memory);
        void views.reveal(memory).catch((err) => ctx.reportError(err, 'Reveal memory'));
      });
      qp.onDidHide(() => {
        if (!sub) finish(undefined);
      });
      decorate();
      qp.show();
      search();
    });
  });
}
