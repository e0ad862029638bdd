/**
 * The Memories view's title actions: `mnemo.showRecentMemories` / `mnemo.showGroupedMemories` (flat list or
 * project › category › source), `mnemo.sortMemories`, `mnemo.filterMemories` (status, category, source,
 * age, confidence) and `mnemo.showHiddenMemories` / `mnemo.hideHiddenMemories` (wrong, archived,
 * superseded). The tree remembers each per workspace.
 */
import * as vscode from 'vscode';
import {
  CATEGORIES,
  SOURCE_TYPES,
  type Category,
  type MemoryStatus,
  type SourceType,
} from '../../sidecar/model';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { ALL_STATUSES, SORT_LABEL, type TreeFilter, type TreeSort } from '../views/memoryTree';
import { CATEGORY_LABEL, SOURCE_LABEL, STATUS_LABEL } from '../views/present';
import { Command } from '../commandIds';

const AGES: { label: string; days?: number }[] = [
  { label: 'Any time' },
  { label: 'Last 24 hours', days: 1 },
  { label: 'Last 7 days', days: 7 },
  { label: 'Last 30 days', days: 30 },
  { label: 'Last year', days: 365 },
];

const CONFIDENCE: { label: string; detail: string; max?: number; min?: number }[] = [
  { label: 'Any confidence', detail: '' },
  { label: 'Low — below 50%', detail: 'fading: unused for a long time, or never confirmed', max: 0.5 },
  { label: 'High — above 80%', detail: 'confirmed or seen again', min: 0.8 },
];

type Dimension = 'status' | 'category' | 'source' | 'age' | 'confidence' | 'clear';

/** The filter in words, for the view's description: "pending · Instruction · last 7 days". */
export function filterLabel(f: Omit<TreeFilter, 'label'>): string {
  return [
    f.status ? f.status.join(', ') : '',
    f.isActionable ? 'actionable' : '',
    f.category ? CATEGORY_LABEL[f.category] : '',
    f.sourceType ? SOURCE_LABEL[f.sourceType] : '',
    f.days ? (AGES.find((a) => a.days === f.days)?.label.toLowerCase() ?? `last ${f.days} days`) : '',
    f.since && !f.days ? 'recent' : '',
    f.maxConfidence !== undefined ? `confidence below ${Math.round(f.maxConfidence * 100)}%` : '',
    f.minConfidence !== undefined ? `confidence above ${Math.round(f.minConfidence * 100)}%` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

export function register(ctx: Ctx, views: Views): void {
  const tree = views.memories;

  ctx.registerCommand(Command.showRecentMemories, () => tree.setOptions({ mode: 'recent' }));
  ctx.registerCommand(Command.showGroupedMemories, () => tree.setOptions({ mode: 'grouped' }));
  ctx.registerCommand(Command.showHiddenMemories, () => {
    // An explicit status filter would keep them out: showing them clears it.
    if (tree.filter?.status) setFilter({ ...tree.filter, status: undefined });
    tree.setOptions({ showHidden: true });
  });
  ctx.registerCommand(Command.hideHiddenMemories, () => tree.setOptions({ showHidden: false }));

  ctx.registerCommand(Command.sortMemories, async () => {
    const current = tree.options.sort;
    const choice = await vscode.window.showQuickPick(
      (Object.keys(SORT_LABEL) as TreeSort[]).map((sort) => ({
        label: SORT_LABEL[sort].replace(/^./, (c) => c.toUpperCase()),
        description: sort === current ? 'current' : undefined,
        sort,
      })),
      { title: 'Mnemo: Sort Memories', placeHolder: 'List the memories in which order?' },
    );
    if (choice) tree.setOptions({ sort: choice.sort });
    return choice?.sort;
  });

  const setFilter = (f: Omit<TreeFilter, 'label'> | undefined): void => {
    const clean = f
      ? (Object.fromEntries(Object.entries(f).filter(([k, v]) => v !== undefined && k !== 'label')) as Omit<
          TreeFilter,
          'label'
        >)
      : undefined;
    const label = clean ? filterLabel(clean) : '';
    views.setFilter(
      clean && (label || clean.projectId) ? { ...clean, label: label || 'project' } : undefined,
    );
  };

  ctx.registerCommand(Command.filterMemories, async (dimensionArg?: unknown) => {
    const f: Omit<TreeFilter, 'label'> = { ...(tree.filter ?? {}) };
    const dimension =
      typeof dimensionArg === 'string' ? (dimensionArg as Dimension) : await pickDimension(f, !!tree.filter);
    if (dimension === 'clear') {
      views.setFilter(undefined);
      return undefined;
    }
    if (!dimension || !(await pickValue(dimension, f))) return undefined;
    setFilter(f);
    return tree.filter;
  });
}

/** Which part of the filter to change (each row says its current value); undefined when dismissed. */
async function pickDimension(
  f: Omit<TreeFilter, 'label'>,
  filtered: boolean,
): Promise<Dimension | undefined> {
  const any = (v: string | undefined) => v ?? 'any';
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: '$(circle-filled) Status',
        description: f.status?.join(', ') ?? 'in use (wrong and archived hidden)',
        d: 'status' as Dimension,
      },
      {
        label: '$(symbol-class) Category',
        description: any(f.category && CATEGORY_LABEL[f.category]),
        d: 'category' as Dimension,
      },
      {
        label: '$(source-control) Source',
        description: any(f.sourceType && SOURCE_LABEL[f.sourceType]),
        d: 'source' as Dimension,
      },
      {
        label: '$(calendar) Created',
        description: AGES.find((a) => a.days === f.days)?.label ?? 'any time',
        d: 'age' as Dimension,
      },
      {
        label: '$(pulse) Confidence',
        description:
          CONFIDENCE.find((c) => c.max === f.maxConfidence && c.min === f.minConfidence)?.label ?? 'any',
        d: 'confidence' as Dimension,
      },
      ...(filtered ? [{ label: '$(clear-all) Clear Filter', d: 'clear' as Dimension }] : []),
    ],
    { title: 'Mnemo: Filter Memories', placeHolder: 'Filter the Memories view by…' },
  );
  return picked?.d;
}

/** Asks for the new value of one part of the filter and sets it in `f`; false when dismissed. */
async function pickValue(
  dimension: Exclude<Dimension, 'clear'>,
  f: Omit<TreeFilter, 'label'>,
): Promise<boolean> {
  switch (dimension) {
    case 'status': {
      const picked = await vscode.window.showQuickPick(
        ALL_STATUSES.map((status) => ({
          label: STATUS_LABEL[status].replace(/^./, (c) => c.toUpperCase()),
          status,
          picked: f.status?.includes(status) ?? false,
        })),
        {
          title: 'Mnemo: Filter by Status',
          placeHolder: 'Which statuses? (none picked: those in use)',
          canPickMany: true,
        },
      );
      if (!picked) return false;
      f.status = picked.length ? picked.map((p) => p.status as MemoryStatus) : undefined;
      return true;
    }
    case 'category': {
      const picked = await vscode.window.showQuickPick(
        [
          { label: 'Any category', category: undefined as Category | undefined },
          ...CATEGORIES.map((category) => ({ label: CATEGORY_LABEL[category], category })),
        ],
        { title: 'Mnemo: Filter by Category' },
      );
      if (!picked) return false;
      f.category = picked.category;
      return true;
    }
    case 'source': {
      const picked = await vscode.window.showQuickPick(
        [
          { label: 'Any source', sourceType: undefined as SourceType | undefined },
          ...SOURCE_TYPES.map((sourceType) => ({ label: SOURCE_LABEL[sourceType], sourceType })),
        ],
        { title: 'Mnemo: Filter by Source' },
      );
      if (!picked) return false;
      f.sourceType = picked.sourceType;
      return true;
    }
    case 'age': {
      const picked = await vscode.window.showQuickPick(AGES, { title: 'Mnemo: Filter by Age' });
      if (!picked) return false;
      f.days = picked.days;
      f.since = undefined;
      return true;
    }
    case 'confidence': {
      const picked = await vscode.window.showQuickPick(CONFIDENCE, { title: 'Mnemo: Filter by Confidence' });
      if (!picked) return false;
      f.maxConfidence = picked.max;
      f.minConfidence = picked.min;
      return true;
    }
    default:
      return false;
  }
}
