/**
 * `mnemo.views.sources` (Agent Sessions): the agents whose transcripts Mnemo can capture, as found for this
 * workspace — on, off or never asked, how many sessions, what was learned and when — with Turn On, Turn
 * Off and Capture Now on each (src/commands/agentSources.ts). Reloaded when a capture or a setting changed
 * and when it becomes visible, at most every few seconds (listing walks the agents' folders).
 */
import * as vscode from 'vscode';
import type { SourceSummary } from '../../sidecar/protocol';
import { answerOf, sourceDescription } from '../shared/agentConsent';
import type { CapturePause } from '../shared/pause';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { logFailure } from '../errors';
import { relativeAge } from '../time';
import { ContextValue } from '../shared/contextValues';

export interface SourceNode {
  kind: 'source';
  source: SourceSummary;
}

const MIN_RELOAD_MS = 5_000;

/** What the view reads of the agents' sessions (capture/agents.ts keeps them): the list and when it changes. */
export interface AgentSessionList {
  list(): Promise<SourceSummary[]>;
  readonly onDidChange: vscode.Event<void>;
}

export class SourcesTreeProvider implements vscode.TreeDataProvider<SourceNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<SourceNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private items: SourceNode[] | undefined;
  private loadedAt = 0;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly ctx: Ctx,
    private readonly agents: AgentSessionList,
    private readonly pause: CapturePause,
  ) {
    this.disposables.push(
      this.emitter,
      agents.onDidChange(() => this.refresh()),
      ctx.onDidChangeState(() => this.refresh()),
      // What an agent's sessions taught changes the counts: reloaded at most once a second (a backfill
      // announces memories in bursts).
      ctx.onDidChangeMemories(() => this.refreshSoon()),
    );
  }

  dispose(): void {
    clearTimeout(this.reloadTimer);
    for (const d of this.disposables) d.dispose();
  }

  private refreshSoon(): void {
    if (this.reloadTimer) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      this.refresh();
    }, 1000);
  }

  refresh(): void {
    this.items = undefined;
    this.emitter.fire();
  }

  /** Reloads when shown, unless it was loaded moments ago. */
  shown(): void {
    if (Date.now() - this.loadedAt > MIN_RELOAD_MS) this.refresh();
  }

  getTreeItem(node: SourceNode): vscode.TreeItem {
    const s = node.source;
    const answer = answerOf(config.capture.sources(), s.id);
    const item = new vscode.TreeItem(s.label, vscode.TreeItemCollapsibleState.None);
    item.id = `source:${s.id}`;
    item.description = sourceDescription(s, answer, this.pause.paused);
    item.iconPath = new vscode.ThemeIcon(
      !s.detected
        ? 'circle-large-outline'
        : answer === true
          ? 'pass-filled'
          : answer === false
            ? 'circle-slash'
            : 'question',
    );
    item.contextValue = !s.detected
      ? ContextValue.SourceMissing
      : answer === true
        ? ContextValue.SourceOn
        : answer === false
          ? ContextValue.SourceOff
          : ContextValue.SourceUnasked;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = false;
    md.appendMarkdown(
      [
        `**${s.label}**`,
        s.detected
          ? `${s.sessions} session(s) of this workspace, ${s.other_sessions} of other folders (each into its own project).`
          : 'No transcripts found.',
        `Learned: ${s.captured_messages} message(s) from ${s.captured_sessions} session(s)${s.last_capture_at ? `, last ${relativeAge(s.last_capture_at, Date.now())}` : ''}.`,
        `Looks in: ${s.locations.map((l) => `\`${l}\``).join(', ')}`,
        ...(s.note ? [s.note] : []),
      ].join('\n\n'),
    );
    item.tooltip = md;
    item.accessibilityInformation = { label: `${s.label}: ${item.description}`, role: 'treeitem' };
    return item;
  }

  getParent(): undefined {
    return undefined;
  }

  async getChildren(node?: SourceNode): Promise<SourceNode[]> {
    if (node || !this.ctx.isRunning) return [];
    if (this.items) return this.items;
    try {
      const list = await this.agents.list();
      this.loadedAt = Date.now();
      // Found agents first, the others after them.
      this.items = [...list.filter((s) => s.detected), ...list.filter((s) => !s.detected)].map((source) => ({
        kind: 'source' as const,
        source,
      }));
      return this.items;
    } catch (err) {
      logFailure(this.ctx.log, 'Listing agent sessions', err);
      return [];
    }
  }
}
