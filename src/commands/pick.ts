/**
 * Which memories a command acts on: the tree items it was invoked on (one, or the multi-selection),
 * a memory id (chat buttons, tests), or — from the palette or a keybinding — a keyboard-friendly
 * picker with live keyword search that lists the views' current selection first.
 */
import * as vscode from 'vscode';
import type { Memory, MemoryStatus } from '../../sidecar/model';
import { GetRequest, ListRequest, SearchRequest } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { projectLabel, workspaceProjects } from '../projects';
import { CATEGORY_LABEL, description, shortText } from '../views/present';

function memoryOf(arg: unknown): Memory | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const o = arg as { kind?: string; memory?: Memory; id?: unknown; text?: unknown; project_id?: unknown };
  if ((o.kind === 'memory' || o.kind === 'review') && o.memory) return o.memory;
  if (typeof o.id === 'string' && typeof o.text === 'string' && typeof o.project_id === 'string')
    return arg as Memory;
  return undefined;
}

export interface ResolveOptions {
  title: string;
  /** Statuses offered by the picker (default: everything the tree shows). */
  statuses?: MemoryStatus[];
  many?: boolean;
}

/** A keybinding's argument (package.json `keybindings`): act on the focused view's selection. */
export function focusedViewOf(arg: unknown): string | undefined {
  const v = (arg as { focused?: unknown } | undefined)?.focused;
  return typeof v === 'string' ? v : undefined;
}

/** The memories a command was invoked on, or undefined when the user cancelled the picker. */
export async function resolveMemories(
  ctx: Ctx,
  views: Pick<Views, 'selectedMemories'>,
  args: unknown[],
  opts: ResolveOptions,
): Promise<Memory[] | undefined> {
  const [first, second] = args;
  const focused = focusedViewOf(first);
  if (focused) {
    // A key pressed on a row (Enter, F2, Delete): the rows selected there, nothing when none is a memory.
    const selected = views.selectedMemories(focused);
    return opts.many ? selected : selected.slice(0, 1);
  }
  if (Array.isArray(second)) {
    const many = second.map(memoryOf).filter((m): m is Memory => m !== undefined);
    if (many.length) return many;
  }
  const one = memoryOf(first);
  if (one) return [one];
  if (typeof first === 'string' && first.startsWith('mem_'))
    return [await ctx.request(GetRequest, { id: first })];
  if (Array.isArray(first)) {
    const ids = first.filter((x): x is string => typeof x === 'string');
    if (ids.length) return Promise.all(ids.map((id) => ctx.request(GetRequest, { id })));
  }
  return pickMemories(ctx, views, opts);
}

interface MemoryPick extends vscode.QuickPickItem {
  memory?: Memory;
}

function toPick(m: Memory, tag?: string): MemoryPick {
  return {
    label: shortText(m.text, 100),
    description: `${tag ? `${tag} · ` : ''}${projectLabel(m.project_id)} · ${CATEGORY_LABEL[m.category] ?? m.category}`,
    detail: description(m),
    memory: m,
  };
}

/** A QuickPick over memories: the current selection, then recent memories, then keyword search as you type. */
export async function pickMemories(
  ctx: Ctx,
  views: Pick<Views, 'selectedMemories'>,
  opts: ResolveOptions,
): Promise<Memory[] | undefined> {
  const statuses = opts.statuses ?? ['active', 'pending', 'confirmed', 'wrong'];
  const selected = views.selectedMemories().filter((m) => statuses.includes(m.status));
  const qp = vscode.window.createQuickPick<MemoryPick>();
  qp.title = opts.title;
  qp.placeholder = 'Type to search memories by keyword; Enter to choose';
  qp.canSelectMany = opts.many ?? false;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.busy = true;

  const recent = async (): Promise<Memory[]> => {
    const lists = await Promise.all(
      workspaceProjects().map((p) =>
        ctx.request(ListRequest, {
          project_id: p.projectId,
          include_global: false,
          status: statuses,
          limit: 20,
        }),
      ),
    );
    return lists
      .flatMap((l) => l.items)
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
      .slice(0, 40);
  };

  const render = (found: Memory[]): void => {
    const selectedIds = new Set(selected.map((m) => m.id));
    const items: MemoryPick[] = [];
    if (selected.length) {
      items.push({ label: 'Selected in the Mnemo views', kind: vscode.QuickPickItemKind.Separator });
      items.push(...selected.map((m) => toPick(m, 'selected')));
      items.push({ label: qp.value ? 'Search results' : 'Recent', kind: vscode.QuickPickItemKind.Separator });
    }
    items.push(...found.filter((m) => !selectedIds.has(m.id)).map((m) => toPick(m)));
    qp.items = items;
    if (qp.canSelectMany) qp.selectedItems = items.filter((i) => i.memory && selectedIds.has(i.memory.id));
  };

  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  const search = (value: string): void => {
    const mine = ++seq;
    qp.busy = true;
    const run = async (): Promise<void> => {
      try {
        const found = value.trim()
          ? (
              await ctx.request(SearchRequest, { query: value, mode: 'keyword', status: statuses, limit: 50 })
            ).items.map((i) => i.memory)
          : await recent();
        if (mine === seq) render(found);
      } catch (err) {
        ctx.log.warn(`Memory picker search failed: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        if (mine === seq) qp.busy = false;
      }
    };
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(), value ? 200 : 0);
  };

  return new Promise<Memory[] | undefined>((resolve) => {
    let done = false;
    const finish = (v: Memory[] | undefined): void => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      resolve(v);
      qp.dispose();
    };
    qp.onDidChangeValue((v) => search(v));
    qp.onDidAccept(() => {
      const chosen = (qp.canSelectMany ? qp.selectedItems : qp.activeItems)
        .map((i) => i.memory)
        .filter((m): m is Memory => m !== undefined);
      if (chosen.length) finish(chosen);
    });
    qp.onDidHide(() => finish(undefined));
    qp.show();
    search('');
  });
}

/** A project of the workspace (or Global); asks only when there is more than one. */
export async function pickProject(title: string, includeGlobal = true): Promise<string | undefined> {
  const projects = workspaceProjects(includeGlobal);
  if (projects.length === 1) return projects[0].projectId;
  const choice = await vscode.window.showQuickPick(
    projects.map((p) => ({ label: p.label, description: p.projectId, projectId: p.projectId })),
    { title, placeHolder: 'Choose the project' },
  );
  return choice?.projectId;
}
