/**
 * The numbers the status bar, the Review Queue badge, the daily digest and the "Other projects" node share,
 * all in one scope: the workspace's projects (its folders' projects plus Global), with the rest of the store
 * counted apart. One `mnemo/memory/counts` over the whole store per reload, summed by views/counts.ts.
 *
 * Writes by another process (the CLI, another window's sidecar on a shared Chroma) reach no change
 * notification, so the numbers are also checked when the window gets the focus; when they moved, every view
 * reloads through the context's change event (the one refresh path).
 */
import * as vscode from 'vscode';
import { CountsRequest, type CountGroup } from '../../sidecar/protocol';
import type { Ctx } from '../ctx';
import { errorDetail } from '../errors';
import { workspaceProjects } from '../projects';
import { scopeCounts, type ScopeCounts } from './counts';

/** Focus checks closer together than this are skipped. */
const FOCUS_CHECK_MS = 5_000;

function signature(groups: readonly CountGroup[]): string {
  return groups
    .map((g) => `${g.project_id}\u0000${g.status}\u0000${g.category}\u0000${g.source_type}\u0000${g.count}`)
    .sort()
    .join('\n');
}

export class WorkspaceCounts implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ScopeCounts | undefined>();
  /** Fires after every reload (undefined: the sidecar is down or the counts failed). */
  readonly onDidChange = this.emitter.event;
  private _current: ScopeCounts | undefined;
  private lastSignature: string | undefined;
  private generation = 0;
  private loading: Promise<ScopeCounts | undefined> | undefined;
  private lastFocusCheck = 0;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx) {
    this.disposables.push(
      this.emitter,
      vscode.window.onDidChangeWindowState((s) => {
        if (s.focused) void this.checkForOutsideWrites();
      }),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** The last counts (undefined before the first load or while the sidecar is down). */
  get current(): ScopeCounts | undefined {
    return this._current;
  }

  /** The current counts, loading them once if none are known yet. */
  async ensure(): Promise<ScopeCounts | undefined> {
    return this._current ?? this.loading ?? this.reload();
  }

  /** Reloads the counts (part of the one reload path in views/index.ts). */
  reload(): Promise<ScopeCounts | undefined> {
    const mine = ++this.generation;
    const run = this.load().then((counts) => {
      if (mine !== this.generation) return this._current;
      this._current = counts;
      this.emitter.fire(counts);
      return counts;
    });
    this.loading = run.finally(() => {
      if (this.loading === run) this.loading = undefined;
    });
    return run;
  }

  private async load(): Promise<ScopeCounts | undefined> {
    if (!this.ctx.isRunning) {
      this.lastSignature = undefined;
      return undefined;
    }
    try {
      const { groups } = await this.ctx.request(CountsRequest, {});
      this.lastSignature = signature(groups);
      return scopeCounts(
        groups,
        workspaceProjects().map((p) => p.projectId),
      );
    } catch (err) {
      this.ctx.log.warn(`Counting memories failed: ${errorDetail(err)}`);
      return undefined;
    }
  }

  /** On focus: when the store's numbers moved without a notification, every view reloads. */
  private async checkForOutsideWrites(): Promise<void> {
    const now = Date.now();
    if (!this.ctx.isRunning || now - this.lastFocusCheck < FOCUS_CHECK_MS || this.lastSignature === undefined)
      return;
    this.lastFocusCheck = now;
    try {
      const { groups } = await this.ctx.request(CountsRequest, {});
      if (signature(groups) !== this.lastSignature) {
        this.ctx.log.info(
          'Memories changed outside this window (CLI or another process); reloading the views.',
        );
        this.ctx.announceChange();
      }
    } catch (err) {
      this.ctx.log.debug(`Focus check of the counts failed: ${errorDetail(err)}`);
    }
  }
}
