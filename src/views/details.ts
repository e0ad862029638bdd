/**
 * A memory's details (`mnemo.showMemory`: Enter or a click on a memory, Search's Enter): one webview tab,
 * titled by the memory, a person acts from — Confirm, Edit, Mark as Wrong, Open Source — with its text
 * wrapped, every field in words, each source explained, the session it came from with its own turns
 * marked, and when and to whom it was served. Reused like a preview: showing another memory replaces it.
 * Strict CSP (nonce script, no remote content), theme colours; regenerated when memories change (the one
 * reload path, views/index.ts).
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { ErrorCodes, EvidenceRequest, GetRequest, LedgerListRequest } from '../../sidecar/protocol';
import { Command } from '../commandIds';
import { parseFileRef } from '../shared/sourceRef';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { describeError, errorCode, errorDetail, logFailure } from '../errors';
import { projectLabel } from '../projects';
import { servedSection } from './ledgerText';
import { escapeHtml as esc, strictCsp, pageHead } from './webviewHtml';
import {
  detailRows,
  evidenceSection,
  MATCHED_TURN,
  shortText,
  sourceRows,
  STATUS_LABEL,
} from '../shared/memoryText';

/** What the buttons post (the webview sends exactly these). */
type Message = { type: 'confirm' | 'edit' | 'markWrong' | 'openSource' };

const ACTION: Record<Message['type'], string> = {
  confirm: Command.confirmMemory,
  edit: Command.editMemory,
  markWrong: Command.markWrong,
  openSource: Command.openSource,
};

export class MemoryDetails implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private memory: Memory | undefined;
  private generation = 0;
  /**
   * The content the tab shows. A page is set again only when it changed: setting a webview's html reloads
   * it, and a reload while the command palette is open took the focus from the palette, which closed
   * (memories change all the time in the background, a capture or another window's write).
   */
  private shownContent: string | undefined;

  constructor(private readonly ctx: Ctx) {}

  dispose(): void {
    this.panel?.dispose();
  }

  /** The memory shown, if the tab is open (tests read it). */
  get shown(): Memory | undefined {
    return this.panel ? this.memory : undefined;
  }

  /** The page shown, if the tab is open (tests read it). */
  get html(): string | undefined {
    return this.panel?.webview.html;
  }

  /** Shows a memory's details in the one details tab (opened, or revealed and replaced). */
  async show(memory: Memory, preserveFocus = false): Promise<void> {
    this.memory = memory;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        'mnemo.memoryDetails',
        shortText(memory.text, 40),
        { viewColumn: vscode.ViewColumn.Active, preserveFocus },
        { enableScripts: true, enableCommandUris: false, localResourceRoots: [] },
      );
      this.panel.iconPath = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'media', 'mnemo.svg');
      this.shownContent = undefined;
      this.panel.onDidDispose(() => (this.panel = undefined));
      this.panel.webview.onDidReceiveMessage((m: Message) => this.act(m));
    } else {
      this.panel.reveal(undefined, preserveFocus);
    }
    await this.render(memory);
  }

  /** Re-reads the shown memory (it may have been confirmed, edited or deleted) and renders it again. */
  refresh(): void {
    const shown = this.memory;
    if (!this.panel || !shown) return;
    void this.ctx.request(GetRequest, { id: shown.id }).then(
      (m) => this.render(m),
      (err: unknown) => {
        if (errorCode(err) === ErrorCodes.NotFound) this.gone(shown);
        else this.ctx.log.warn(`Refreshing the details of ${shown.id}: ${errorDetail(err)}`);
      },
    );
  }

  private act(m: Message): void {
    const memory = this.memory;
    const command = m && ACTION[m.type];
    if (!memory || !command) return;
    void vscode.commands.executeCommand(command, memory);
  }

  private gone(m: Memory): void {
    if (!this.panel) return;
    this.shownContent = undefined;
    this.panel.webview.html = page(
      this.panel.webview,
      `<h1>${esc(m.text)}</h1><p class="note" role="status">This memory was deleted.</p>`,
      false,
    );
  }

  private async render(memory: Memory): Promise<void> {
    const mine = ++this.generation;
    const [evidence, served] = await Promise.all([this.evidence(memory), this.served(memory.id)]);
    const panel = this.panel;
    if (!panel || mine !== this.generation) return;
    this.memory = memory;
    const title = shortText(memory.text, 40);
    if (panel.title !== title) panel.title = title;
    const content = body(memory, evidence, served);
    if (content === this.shownContent) return;
    this.shownContent = content;
    panel.webview.html = page(panel.webview, content, true);
  }

  private async evidence(memory: Memory): Promise<string> {
    const timeZone = config.display.timeZone();
    try {
      return evidenceSection(await this.ctx.request(EvidenceRequest, { id: memory.id }), { timeZone });
    } catch (err) {
      logFailure(this.ctx.log, `Reading the source turns of ${memory.id}`, err);
      return evidenceSection(
        {
          memory_id: memory.id,
          sessions: [],
          note: `The source turns could not be read: ${describeError(err)}`,
        },
        { timeZone },
      );
    }
  }

  private async served(memoryId: string): Promise<string> {
    try {
      const r = await this.ctx.request(LedgerListRequest, { memory_id: memoryId, limit: 10 });
      return servedSection(r, memoryId, { timeZone: config.display.timeZone() });
    } catch (err) {
      this.ctx.log.warn(`When ${memoryId} was served could not be read: ${errorDetail(err)}`);
      return `\nServed to agents and people\n  could not be read: ${describeError(err)}\n`;
    }
  }
}

/** The page's body: the memory, its actions, its fields, sources, where it came from, who was shown it. */
function body(m: Memory, evidence: string, served: string): string {
  const isFileRef = (r: string): boolean => parseFileRef(r) !== undefined;
  const rows = detailRows(m, { projectLabel, timeZone: config.display.timeZone(), isFileRef });
  const sources = sourceRows(m, { isFileRef });
  const button = (type: Message['type'], label: string, primary = false): string =>
    `<button type="button" class="${primary ? 'primary' : 'secondary'}" data-action="${type}">${label}</button>`;
  const actions = [
    m.status === 'pending' || m.status === 'active' || m.status === 'wrong'
      ? button('confirm', 'Confirm', m.status === 'pending')
      : '',
    button('edit', 'Edit…'),
    m.status === 'active' || m.status === 'pending' || m.status === 'confirmed'
      ? button('markWrong', 'Mark as Wrong')
      : '',
    sources.some(([r]) => isFileRef(r)) ? button('openSource', 'Open Source') : '',
  ].filter(Boolean);
  return `<h1>${esc(m.text)}</h1>
<p class="meta">${esc(STATUS_LABEL[m.status] ?? m.status)} · ${esc(projectLabel(m.project_id))}</p>
<div class="actions" role="toolbar" aria-label="Act on this memory">${actions.join('')}</div>
<table>${rows.map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>
<h2>Sources</h2>
${sources.length ? `<table>${sources.map(([r, what]) => `<tr><th scope="row"><code>${esc(r)}</code></th><td>${esc(what)}</td></tr>`).join('')}</table>` : '<p class="note">None recorded.</p>'}
${section(evidence)}
${section(served)}`;
}

/** A text section (its first non-empty line the heading), wrapped; the memory's own turns marked. */
function section(text: string): string {
  const lines = text.replace(/^\n+/, '').replace(/\n+$/, '').split('\n');
  const [heading, ...rest] = lines;
  const pre = rest
    .map((l) =>
      l.trimStart().startsWith(MATCHED_TURN)
        ? `<span class="own" title="The turn this memory was learned from">${esc(l)}</span>`
        : esc(l),
    )
    .join('\n');
  return `<h2>${esc(heading ?? '')}</h2><pre>${pre.replace(/^\n+/, '')}</pre>`;
}

function page(webview: vscode.Webview, content: string, scripts: boolean): string {
  const { nonce, csp } = strictCsp(webview);
  return `${pageHead(csp, 'Memory')}
<style nonce="${nonce}">
body{font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:0 20px 24px;max-width:900px;line-height:1.45}
h1{font-size:1.3em;font-weight:600;white-space:pre-wrap;overflow-wrap:anywhere}
h2{font-size:1.05em;font-weight:600;margin:20px 0 6px}
.meta,.note{color:var(--vscode-descriptionForeground)}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0 16px}
button{font:inherit;padding:4px 14px;border:1px solid var(--vscode-button-border,transparent);border-radius:2px;cursor:pointer}
button.primary{color:var(--vscode-button-foreground);background:var(--vscode-button-background)}
button.primary:hover{background:var(--vscode-button-hoverBackground)}
button.secondary{color:var(--vscode-button-secondaryForeground);background:var(--vscode-button-secondaryBackground)}
button:focus-visible{outline:1px solid var(--vscode-focusBorder);outline-offset:2px}
table{border-collapse:collapse}
th{text-align:left;vertical-align:top;font-weight:600;padding:2px 16px 2px 0;white-space:nowrap}
td{padding:2px 0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-family:var(--vscode-editor-font-family);font-size:var(--vscode-editor-font-size);margin:0}
.own{display:block;background:var(--vscode-editor-rangeHighlightBackground);outline:1px solid var(--vscode-editor-rangeHighlightBorder,transparent)}
</style>
</head>
<body>
${content}
${scripts ? `<script nonce="${nonce}">const vscode = acquireVsCodeApi();for (const b of document.querySelectorAll('[data-action]')) b.addEventListener('click', () => vscode.postMessage({ type: b.dataset.action }));</script>` : ''}
</body>
</html>`;
}
