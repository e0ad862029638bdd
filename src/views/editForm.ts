/**
 * The one edit surface (`mnemo.editMemory`): a form in a webview editor tab that opens with the memory's
 * current values — text in a multi-line box, the current category and "actionable" already chosen,
 * confidence, sources one per line — saves only what changed (commands/editPatch.ts) and says what
 * changed in the status bar. Strict CSP (nonce script, no remote content), theme colours, keyboard:
 * Ctrl/Cmd+Enter saves, Escape closes without saving. One tab per memory; opening it again reveals it.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { CATEGORIES, type Memory } from '../../sidecar/model';
import { UpdateRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import { editPatch, formValues, savedMessage, validateEdit, type EditValues } from '../commands/editPatch';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { describeError, logFailure } from '../errors';
import { projectLabel } from '../projects';
import { CATEGORY_DETAIL, CATEGORY_LABEL, shortText, SOURCE_LABEL, STATUS_LABEL } from './memoryText';
import { formatLocal, formatUtc } from '../time';
import type { StatusBar } from './statusBar';

type Message = { type: 'save'; values: EditValues } | { type: 'cancel' };

interface OpenForm {
  panel: vscode.WebviewPanel;
  memory: Memory;
  /** The values the form opened with: the patch is computed against them. */
  opened: EditValues;
  resolve: (m: Memory | undefined) => void;
  done: Promise<Memory | undefined>;
}

export class EditForms implements vscode.Disposable {
  private readonly forms = new Map<string, OpenForm>();

  constructor(
    private readonly ctx: Ctx,
    private readonly statusBar: StatusBar,
  ) {}

  dispose(): void {
    for (const f of [...this.forms.values()]) f.panel.dispose();
  }

  /** Memory ids with an open form (tests read it). */
  get openIds(): string[] {
    return [...this.forms.keys()];
  }

  /**
   * Opens (or reveals) the form of a memory; resolves with the updated memory after Save, or undefined
   * when the form is closed without saving or nothing changed.
   */
  open(memory: Memory): Promise<Memory | undefined> {
    const existing = this.forms.get(memory.id);
    if (existing) {
      existing.panel.reveal();
      return existing.done;
    }
    const panel = vscode.window.createWebviewPanel(
      'mnemo.editForm',
      `Edit: ${shortText(memory.text, 30)}`,
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        enableCommandUris: false,
        localResourceRoots: [],
        retainContextWhenHidden: true,
      },
    );
    panel.iconPath = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'media', 'mnemo.svg');
    let resolve: (m: Memory | undefined) => void = () => undefined;
    const done = new Promise<Memory | undefined>((r) => (resolve = r));
    const form: OpenForm = { panel, memory, opened: formValues(memory), resolve, done };
    this.forms.set(memory.id, form);
    panel.onDidDispose(() => {
      this.forms.delete(memory.id);
      form.resolve(undefined);
    });
    panel.webview.onDidReceiveMessage((m: Message) => void this.receive(memory.id, m));
    panel.webview.html = this.html(panel.webview, form);
    return done;
  }

  /** What the form's Save and Cancel buttons send (the webview posts exactly this). */
  async receive(memoryId: string, m: Message): Promise<void> {
    const form = this.forms.get(memoryId);
    if (!form) return;
    if (m?.type === 'cancel') {
      form.panel.dispose();
      return;
    }
    if (m?.type !== 'save' || !m.values) return;
    const values: EditValues = {
      text: String(m.values.text ?? ''),
      category: m.values.category,
      confidence: String(m.values.confidence ?? ''),
      actionable: m.values.actionable === true,
      sources: String(m.values.sources ?? ''),
    };
    const invalid = validateEdit(values);
    if (invalid) {
      void form.panel.webview.postMessage({ type: 'error', message: invalid });
      return;
    }
    const patch = editPatch(form.opened, values);
    if (Object.keys(patch).length === 0) {
      this.statusBar.flash(`Nothing changed in “${shortText(form.memory.text, 40)}”`);
      form.resolve(undefined);
      form.panel.dispose();
      return;
    }
    try {
      const updated = await this.ctx.request(UpdateRequest, { id: form.memory.id, patch, by: currentUser() });
      this.statusBar.flash(savedMessage(form.memory, patch));
      form.resolve(updated);
      form.panel.dispose();
    } catch (err) {
      logFailure(this.ctx.log, `Saving the memory`, err);
      void form.panel.webview.postMessage({ type: 'error', message: describeError(err) });
    }
  }

  private html(webview: vscode.Webview, form: OpenForm): string {
    const nonce = randomBytes(16).toString('base64');
    const csp = [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      `font-src ${webview.cspSource}`,
    ].join('; ');
    const m = form.memory;
    const v = form.opened;
    const zone = config.display.timeZone();
    const categories = CATEGORIES.map(
      (
        c,
      ) => `<label class="choice"><input type="radio" name="category" value="${c}"${c === v.category ? ' checked' : ''}>
<span><b>${esc(CATEGORY_LABEL[c])}</b>${c === m.category ? ' <i>(current)</i>' : ''}<br><small>${esc(CATEGORY_DETAIL[c])}</small></span></label>`,
    ).join('\n');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Edit Memory</title>
<style nonce="${nonce}">
body{font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:0 20px 24px;max-width:760px}
h1{font-size:1.3em;font-weight:600}
.meta{color:var(--vscode-descriptionForeground);margin:-6px 0 16px}
label.field{display:block;font-weight:600;margin:14px 0 4px}
.hint{color:var(--vscode-descriptionForeground);font-weight:normal}
textarea,input[type=number]{font:inherit;color:var(--vscode-input-foreground);background:var(--vscode-input-background);border:1px solid var(--vscode-input-border,transparent);border-radius:2px;padding:4px 6px;box-sizing:border-box}
textarea{width:100%;resize:vertical}
textarea:focus,input:focus{outline:1px solid var(--vscode-focusBorder);outline-offset:-1px}
input[type=number]{width:6em}
fieldset{border:none;padding:0;margin:0}
legend{font-weight:600;margin:14px 0 4px;padding:0}
.choice{display:flex;gap:8px;align-items:flex-start;margin:4px 0;cursor:pointer}
.choice small{color:var(--vscode-descriptionForeground)}
.row{display:flex;gap:8px;align-items:center;margin-top:14px}
.buttons{display:flex;gap:8px;margin-top:20px}
button{font:inherit;padding:4px 14px;border:1px solid var(--vscode-button-border,transparent);border-radius:2px;cursor:pointer}
button.primary{color:var(--vscode-button-foreground);background:var(--vscode-button-background)}
button.primary:hover{background:var(--vscode-button-hoverBackground)}
button.secondary{color:var(--vscode-button-secondaryForeground);background:var(--vscode-button-secondaryBackground)}
button:focus-visible{outline:1px solid var(--vscode-focusBorder);outline-offset:2px}
.error{color:var(--vscode-errorForeground);min-height:1.4em;margin-top:10px}
</style>
</head>
<body>
<h1>Edit Memory</h1>
<p class="meta">${esc(projectLabel(m.project_id))} · ${esc(SOURCE_LABEL[m.source_type] ?? m.source_type)} · ${esc(STATUS_LABEL[m.status] ?? m.status)} · updated <span title="${esc(formatUtc(m.updated_at))}">${esc(formatLocal(m.updated_at, zone))}</span></p>
<form id="form">
<label class="field" for="text">Text</label>
<textarea id="text" name="text" rows="${Math.min(14, Math.max(4, Math.ceil(m.text.length / 80) + 1))}" required autofocus>${esc(v.text)}</textarea>
<fieldset><legend>Category</legend>
${categories}
</fieldset>
<div class="row"><input type="checkbox" id="actionable"${v.actionable ? ' checked' : ''}><label for="actionable">Actionable <span class="hint">— a step, rule or command an agent can act on</span></label></div>
<label class="field" for="confidence">Confidence <span class="hint">(0–100 %)</span></label>
<input type="number" id="confidence" min="0" max="100" step="1" value="${esc(v.confidence)}">
<label class="field" for="sources">Sources <span class="hint">— one per line: file:line, msg:&lt;id&gt;, URLs</span></label>
<textarea id="sources" rows="3">${esc(v.sources)}</textarea>
<div class="error" id="error" role="alert" aria-live="assertive"></div>
<div class="buttons">
<button type="submit" class="primary" id="save">Save</button>
<button type="button" class="secondary" id="cancel">Cancel</button>
</div>
<p class="hint">Only what you change is saved. Ctrl+Enter saves; Escape closes without saving.</p>
</form>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const $ = (id) => document.getElementById(id);
const values = () => ({
  text: $('text').value,
  category: (document.querySelector('input[name=category]:checked') || {}).value,
  confidence: $('confidence').value,
  actionable: $('actionable').checked,
  sources: $('sources').value,
});
$('form').addEventListener('submit', (e) => { e.preventDefault(); vscode.postMessage({ type: 'save', values: values() }); });
$('cancel').addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); vscode.postMessage({ type: 'save', values: values() }); }
  else if (e.key === 'Escape') { e.preventDefault(); vscode.postMessage({ type: 'cancel' }); }
});
window.addEventListener('message', (e) => { if (e.data && e.data.type === 'error') { $('error').textContent = e.data.message; } });
$('text').focus();
</script>
</body>
</html>`;
  }
}

function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}
