/**
 * What the flat list views (Review Queue, What My Agents Saw) share: their rows are loaded once per
 * refresh (one request however many times VS Code asks), re-rendered without a reload so that ages stay
 * true, and a failed load is logged and shows nothing until the next refresh.
 */
import * as vscode from 'vscode';
import { BuiltinCommand } from '../commandIds';
import type { Ctx } from '../ctx';
import type { ContextKey } from '../shared/contextValues';
import { logFailure } from '../errors';

export abstract class ListTreeProvider<Row> implements vscode.Disposable {
  protected readonly emitter = new vscode.EventEmitter<Row | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private items: Row[] | undefined;
  private loading: Promise<Row[]> | undefined;

  constructor(
    protected readonly ctx: Ctx,
    /** What a failed load was, for the log ("Loading the review queue"). */
    private readonly what: string,
    /**
     * Set to whether a load found no rows: the view's welcome ("Nothing waits for review") keys off it, so
     * it shows only after a load said so, never while the rows are reloading after a restart.
     */
    private readonly emptyKey: ContextKey,
  ) {}

  /** The rows, from the sidecar. */
  protected abstract load(): Promise<Row[]>;

  dispose(): void {
    this.emitter.dispose();
  }

  /** Re-renders the loaded rows without reloading them (ages stay true). */
  repaint(): void {
    if (this.items) this.emitter.fire();
  }

  refresh(): void {
    this.items = undefined;
    this.loading = undefined;
    this.emitter.fire();
  }

  /** The top-level rows: loaded once until the next refresh. */
  protected async rows(): Promise<Row[]> {
    if (this.items) return this.items;
    this.loading ??= this.load().then((rows) => {
      void vscode.commands.executeCommand(BuiltinCommand.setContext, this.emptyKey, rows.length === 0);
      return (this.items = rows);
    });
    try {
      return await this.loading;
    } catch (err) {
      this.loading = undefined;
      logFailure(this.ctx.log, this.what, err);
      return [];
    }
  }

  /** The loaded rows (no request). */
  get loaded(): readonly Row[] {
    return this.items ?? [];
  }
}
