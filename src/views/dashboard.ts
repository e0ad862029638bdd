/**
 * The dashboard webview (`mnemo.openDashboard`): per project, the number of memories, new in the last
 * 7 days, actionable, pending, and a confidence histogram, counted as the status bar and the tree count
 * (memories in use; wrong and archived ones as a small figure apart). The workspace's projects come
 * first; the others are marked "not in this workspace". Strict CSP (nonce script, no remote content),
 * theme colours through CSS variables; numbers and bars are buttons that filter the tree to exactly what
 * they count (an empty bar is not a button).
 */
import * as vscode from 'vscode';
import { GLOBAL_PROJECT, type MemoryStatus } from '../../sidecar/model';
import { StatsRequest, type ProjectStats, type StatsResult } from '../../sidecar/protocol';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { describeError, logFailure } from '../errors';
import { projectLabel, workspaceProjects } from '../projects';
import { daysAgoUtc, formatLocal, formatUtc } from '../time';
import type { TreeFilter } from './memoryTree';
import { BuiltinCommand } from '../commandIds';
import { escapeHtml as esc, strictCsp, pageHead } from './webviewHtml';

type Metric = 'total' | 'new7d' | 'actionable' | 'pending' | 'bucket';

interface FilterMessage {
  type: 'filter';
  projectId: string;
  metric: Metric;
  bucket?: number;
}
type Message = FilterMessage | { type: 'refresh' };

/** The tree filter for a clicked number. */
export function filterFor(projectId: string, metric: Metric, bucket?: number): TreeFilter {
  const where = projectLabel(projectId);
  switch (metric) {
    case 'new7d':
      return { label: `new in 7 days · ${where}`, projectId, since: daysAgoUtc(7) };
    case 'actionable':
      return { label: `actionable · ${where}`, projectId, isActionable: true };
    case 'pending':
      return { label: `pending · ${where}`, projectId, status: ['pending'] as MemoryStatus[] };
    case 'bucket': {
      // The bar's own range, [lower, upper) as the histogram counts it (the last bar includes 100%).
      const k = Math.min(9, Math.max(0, Math.floor(bucket ?? 0)));
      const lower = k / 10;
      const upper = (k + 1) / 10;
      return {
        label: `confidence ${k * 10}–${(k + 1) * 10}% · ${where}`,
        projectId,
        // The list filter's lower bound is exclusive: just under the bar's lower edge includes it.
        ...(k > 0 ? { minConfidence: lower - 1e-9 } : {}),
        maxConfidence: k === 9 ? 1.0000001 : upper,
      };
    }
    default:
      return { label: where, projectId };
  }
}

export class Dashboard implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer: NodeJS.Timeout | undefined;
  /** The last stats shown (tests read it). */
  lastStats: StatsResult | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly onFilter: (filter: TreeFilter) => void,
  ) {
    this.disposables.push(
      ctx.onDidChangeMemories(() => this.scheduleRefresh()),
      ctx.onDidChangeState(() => this.scheduleRefresh()),
    );
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  async open(): Promise<void> {
    if (this.panel) {
      this.panel.reveal();
    } else {
      this.panel = vscode.window.createWebviewPanel(
        'mnemo.dashboard',
        'Mnemo Dashboard',
        vscode.ViewColumn.Active,
        {
          enableScripts: true,
          enableCommandUris: false,
          localResourceRoots: [],
          retainContextWhenHidden: false,
        },
      );
      this.panel.iconPath = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'media', 'mnemo.svg');
      this.panel.onDidDispose(() => (this.panel = undefined), undefined, this.disposables);
      this.panel.webview.onDidReceiveMessage((m: Message) => this.onMessage(m), undefined, this.disposables);
    }
    await this.refresh();
  }

  private scheduleRefresh(): void {
    if (!this.panel) return;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh(), 500);
  }

  async refresh(): Promise<void> {
    const panel = this.panel;
    if (!panel) return;
    try {
      const stats = await this.ctx.request(StatsRequest, {});
      this.lastStats = stats;
      if (this.panel === panel) panel.webview.html = this.html(panel.webview, stats, undefined);
    } catch (err) {
      logFailure(this.ctx.log, `Dashboard stats`, err);
      if (this.panel === panel) panel.webview.html = this.html(panel.webview, undefined, describeError(err));
    }
  }

  private onMessage(m: Message): void {
    if (m?.type === 'refresh') {
      void this.refresh();
    } else if (m?.type === 'filter' && typeof m.projectId === 'string') {
      this.onFilter(filterFor(m.projectId, m.metric, m.bucket));
      void vscode.commands.executeCommand(BuiltinCommand.focusMemories);
    }
  }

  private html(webview: vscode.Webview, stats: StatsResult | undefined, error: string | undefined): string {
    const { nonce, csp } = strictCsp(webview, [`img-src ${webview.cspSource} data:`]);
    const body = error
      ? `<p class="error" role="alert">${esc(error)}</p>`
      : stats
        ? this.body(stats)
        : '<p>Loading…</p>';
    const heights = Array.from({ length: 21 }, (_, i) => `.h${i}{height:${i * 5}%}`).join('');
    return `${pageHead(csp, 'Mnemo Dashboard')}
<style nonce="${nonce}">
body{font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:0 16px 24px}
h1{font-size:1.4em;font-weight:600}
h2{font-size:1.1em;margin:0 0 8px}
.meta{color:var(--vscode-descriptionForeground);margin-bottom:16px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:16px}
section{border:1px solid var(--vscode-panel-border,var(--vscode-widget-border,transparent));border-radius:4px;padding:12px;background:var(--vscode-sideBar-background)}
.pid{color:var(--vscode-descriptionForeground);font-size:.9em;word-break:break-all}
.numbers{display:grid;grid-template-columns:repeat(4,1fr);gap:8px;margin:12px 0}
button{font:inherit;color:inherit;background:transparent;border:1px solid transparent;border-radius:3px;cursor:pointer}
button:hover{background:var(--vscode-list-hoverBackground)}
button:focus-visible{outline:1px solid var(--vscode-focusBorder);outline-offset:1px}
.num{display:flex;flex-direction:column;align-items:flex-start;padding:4px 6px;text-align:left}
.num b{font-size:1.6em;font-weight:600;color:var(--vscode-textLink-foreground)}
.num span{color:var(--vscode-descriptionForeground);font-size:.85em}
.hist{display:flex;align-items:flex-end;gap:3px;height:80px;border-bottom:1px solid var(--vscode-descriptionForeground);padding:0 2px}
.bar{flex:1;height:100%;display:flex;align-items:flex-end;padding:0}
.fill{width:100%;background:var(--vscode-charts-blue);min-height:1px}
.low .fill{background:var(--vscode-charts-orange)}
.axis{display:flex;justify-content:space-between;color:var(--vscode-descriptionForeground);font-size:.8em;margin-top:2px}
.retired{color:var(--vscode-descriptionForeground);font-size:.85em;margin:8px 0 0}
h2.others{margin:24px 0 8px}
.error{color:var(--vscode-errorForeground)}
.toolbar{display:flex;gap:8px;align-items:center}
.toolbar button{border-color:var(--vscode-button-border,transparent);background:var(--vscode-button-secondaryBackground);color:var(--vscode-button-secondaryForeground);padding:4px 10px}
${heights}
</style>
</head>
<body>
<div class="toolbar"><h1>Mnemo</h1><button id="refresh" type="button" aria-label="Refresh the dashboard">Refresh</button></div>
${body}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
document.getElementById('refresh').addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
for (const el of document.querySelectorAll('[data-project]')) {
  el.addEventListener('click', () => vscode.postMessage({ type: 'filter', projectId: el.dataset.project, metric: el.dataset.metric, bucket: el.dataset.bucket === undefined ? undefined : Number(el.dataset.bucket) }));
}
</script>
</body>
</html>`;
  }

  private body(stats: StatsResult): string {
    const order = new Map(workspaceProjects().map((p, i) => [p.projectId, i]));
    const byOrder = (a: ProjectStats, b: ProjectStats): number =>
      (order.get(a.project_id) ?? 1000) - (order.get(b.project_id) ?? 1000) || b.total - a.total;
    const mine = stats.projects.filter((p) => order.has(p.project_id)).sort(byOrder);
    const others = stats.projects.filter((p) => !order.has(p.project_id)).sort(byOrder);
    const inWorkspace = mine.reduce((n, p) => n + p.total, 0);
    const elsewhere = others.reduce((n, p) => n + p.total, 0);
    const retired = mine.reduce((n, p) => n + p.retired, 0);
    const meta = [
      // The status bar's number: memories in use in this workspace's projects (Global included).
      `${inWorkspace} ${inWorkspace === 1 ? 'memory' : 'memories'} in this workspace`,
      elsewhere ? `${elsewhere} in other projects` : '',
      retired ? `${retired} wrong or archived (not counted)` : '',
      stats.queued ? `${stats.queued} captures queued` : '',
      // What a person can read; the store's address is an internal (Show Output has it).
      `embedding ${esc(stats.embedding_model)} (${stats.embedding_ready ? 'ready' : 'not loaded yet'})`,
      config.llm.provider() !== 'off' && stats.llm_tokens?.extractions
        ? `LLM extraction: ${stats.llm_tokens.extractions} sessions, ${stats.llm_tokens.prompt + stats.llm_tokens.completion} tokens`
        : '',
      (() => {
        const now = new Date().toISOString();
        return `as of <span title="${esc(formatUtc(now))}">${esc(formatLocal(now, config.display.timeZone()))}</span>`;
      })(),
    ]
      .filter(Boolean)
      .join(' · ');
    const empty =
      '<p>No memories yet. Select text in an editor and run <b>Mnemo: Remember Selection</b>, or keep working: terminal and chat sessions are captured.</p>';
    const grid = (list: ProjectStats[], outside: boolean): string =>
      `<div class="grid">${list.map((p) => this.project(p, outside)).join('\n')}</div>`;
    const sections =
      mine.length + others.length === 0
        ? empty
        : `${mine.length ? grid(mine, false) : empty}${others.length ? `<h2 class="others">Other projects <span class="pid">(not in this workspace)</span></h2>${grid(others, true)}` : ''}`;
    return `<p class="meta">${meta}</p>${sections}`;
  }

  private project(p: ProjectStats, outside: boolean): string {
    const label = p.project_id === GLOBAL_PROJECT ? 'Global' : projectLabel(p.project_id);
    const where = outside ? `${label} (not in this workspace)` : label;
    const pid = esc(p.project_id);
    const num = (metric: Metric, value: number, caption: string): string =>
      `<button type="button" class="num" data-project="${pid}" data-metric="${metric}" aria-label="${value} ${caption} in ${esc(where)}: show in the Memories view"><b>${value}</b><span>${caption}</span></button>`;
    const max = Math.max(1, ...p.confidence_histogram);
    const bars = p.confidence_histogram
      .map((count, i) => {
        const h = count === 0 ? 0 : Math.max(1, Math.round((count / max) * 20));
        const range = `${i * 10}–${i === 9 ? 100 : (i + 1) * 10}%`;
        const title = `${count} with confidence ${range}`;
        // Nothing to show: a bar, not a button that would filter the tree to nothing.
        if (count === 0)
          return `<div class="bar empty${i < 5 ? ' low' : ''}" title="${title}" role="img" aria-label="No memories with confidence ${range}"><div class="fill h0"></div></div>`;
        return `<button type="button" class="bar${i < 5 ? ' low' : ''}" data-project="${pid}" data-metric="bucket" data-bucket="${i}" title="${title}" aria-label="${count} ${count === 1 ? 'memory' : 'memories'} with confidence ${range}: show them in the Memories view"><div class="fill h${h}"></div></button>`;
      })
      .join('');
    const retired = p.retired
      ? `<p class="retired" title="Not counted above; Show Wrong and Archived in the Memories view lists them">${p.retired} wrong or archived</p>`
      : '';
    return `<section aria-label="${esc(where)}"${outside ? ' class="outside"' : ''}>
<h2>${esc(label)}${outside ? ' <span class="pid">(not in this workspace)</span>' : ''}</h2><div class="pid">${pid}</div>
<div class="numbers">${num('total', p.total, 'memories')}${num('new7d', p.new_7d, 'new in 7 days')}${num('actionable', p.actionable, 'actionable')}${num('pending', p.pending, 'pending')}</div>
<div class="hist" role="group" aria-label="Confidence histogram">${bars}</div>
<div class="axis"><span>0%</span><span>confidence</span><span>100%</span></div>
${retired}</section>`;
  }
}
