/**
 * Which memories a command acts on: the tree items it was invoked on (one, or the multi-selection), the
 * row the focus outline is on when a key was pressed in a view (Enter, F2, Delete, Ctrl+Enter…), a memory
 * id (chat buttons, tests), or — from the palette — a keyboard-friendly picker with live keyword search
 * that lists the views' current selection first.
 */
import * as vscode from 'vscode';
import type { Memory, MemoryStatus } from '../../sidecar/model';
import { GetRequest, ListRequest, SearchRequest } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { projectLabel, workspaceProjects } from '../projects';
import { CATEGORY_LABEL, description, shortText } from '../views/present';

/** Whether a tree node is a memory's row (Memories or Review Queue). */
export function isMemoryRow(node: unknown): boolean {
  const kind = (node as { kind?: unknown } | undefined)?.kind;
  return kind === 'memory' || kind === 'review';
}

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

/**
 * A key pressed on a row of a Mnemo view. The keybindings (package.json) pass
 * `[{ "$treeViewId": <view>, "$focusedTreeItem": true }, { "keyIn": <view> }]`: the extension host turns the
 * first element into the row the focus outline is on (the convention VS Code uses for a view's title
 * actions, extHostTreeViews `$focusedTreeItem`), so a key acts on the outlined row, as in the Explorer,
 * not on a selection the arrow keys have left behind.
 */
export interface KeyPress {
  view: string;
  /** The outlined row's node; undefined when no row has the focus. */
  row: unknown;
  /** False when the editor handed the row over unconverted (no focused-row support): use the selection. */
  known: boolean;
}

export function keyPressOf(arg: unknown): KeyPress | undefined {
  if (!Array.isArray(arg) || arg.length !== 2) return undefined;
  const view = (arg[1] as { keyIn?: unknown } | undefined)?.keyIn;
  if (typeof view !== 'string') return undefined;
  const row: unknown = arg[0];
  const raw = row !== null && typeof row === 'object' && '$treeViewId' in row;
  return { view, row: raw ? undefined : (row ?? undefined), known: !raw };
}

/** The memories a key acts on: the outlined row's, or the whole selection when the outline is inside it. */
function keyTargets(
  key: KeyPress,
  views: Pick<Views, 'selectedMemories' | 'statusBar'>,
  opts: ResolveOptions,
): Memory[] {
  const selection = views.selectedMemories(key.view);
  if (!key.known) return opts.many ? selection : selection.slice(0, 1);
  const outlined = memoryOf(key.row);
  const action = opts.title.replace(/^Mnemo: /, '');
  if (!outlined) {
    views.statusBar.flash(
      key.row === undefined
        ? `${action}: no row has the focus; move to a memory with the arrow keys`
        : `${action} acts on a memory; the outlined row is not one`,
    );
    return [];
  }
  if (opts.many && selection.length > 1 && selection.some((m) => m.id === outlined.id)) return selection;
  return [outlined];
}

/** The memories a command was invoked on, or undefined when the user cancelled the picker. */
export async function resolveMemories(
  ctx: Ctx,
  views: Pick<Views, 'selectedMemories' | 'statusBar'>,
  args: unknown[],
  opts: ResolveOptions,
): Promise<Memory[] | undefined> {
  const [first, second] = args;
  const key = keyPressOf(first);
  if (key) return keyTargets(key, views, opts);
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
