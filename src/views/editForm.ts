/**
 * The one edit surface (`mnemo.editMemory`): a form in a webview editor tab that opens with the memory's
 * current values — text in a multi-line box, the current category and "actionable" already chosen,
 * confidence, sources one per line — saves only what changed (editPatch.ts) and says what
 * changed in the status bar. Strict CSP (nonce script, no remote content), theme colours, keyboard:
 * Ctrl/Cmd+Enter saves; Escape closes an untouched form and asks first when something was changed. An
 * edited form says so in its tab ("● Edit: …"); closed unsaved, it offers to reopen the edits. Sources
 * are a list (remove one, add one that reads as a source), never free text to break. One tab per
 * memory; opening it again reveals it.
 */
import * as vscode from 'vscode';
import { CATEGORIES, type Memory } from '../../sidecar/model';
import { UpdateRequest } from '../../sidecar/protocol';
import { currentUser } from '../client';
import { editPatch, formValues, savedMessage, SOURCE_REF, validateEdit, type EditValues } from './editPatch';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { describeError, logFailure } from '../errors';
import { projectLabel } from '../projects';
import { CATEGORY_DETAIL, CATEGORY_LABEL, shortText, SOURCE_LABEL, STATUS_LABEL } from '../shared/memoryText';
import { formatLocal, formatUtc } from '../time';
import type { StatusBar } from './statusBar';
import { escapeHtml as esc, strictCsp, pageHead } from './webviewHtml';

type Message =
  | { type: 'save'; values: EditValues }
  | { type: 'cancel' }
  | { type: 'dirty'; dirty: boolean; values?: EditValues };

interface OpenForm {
  panel: vscode.WebviewPanel;
  memory: Memory;
  /** The values the form opened with: the patch is computed against them. */
  opened: EditValues;
  resolve: (m: Memory | undefined) => void;
  done: Promise<Memory | undefined>;
  /** The form's values while they differ from `opened` (reopened after an unsaved close). */
  draft?: EditValues;
  /** Closed by Save or Cancel (not by the tab's ✕ with edits in it). */
  settled?: boolean;
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
  open(memory: Memory, draft?: EditValues): Promise<Memory | undefined> {
    const existing = this.forms.get(memory.id);
    if (existing) {
      existing.panel.reveal();
      return existing.done;
    }
    const panel = vscode.window.createWebviewPanel(
      'mnemo.editForm',
      formTitle(memory, draft !== undefined),
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
    const form: OpenForm = { panel, memory, opened: formValues(memory), resolve, done, draft };
    this.forms.set(memory.id, form);
    panel.onDidDispose(() => {
      this.forms.delete(memory.id);
      form.resolve(undefined);
      if (form.draft && !form.settled) this.offerReopen(form);
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
      form.settled = true;
      form.panel.dispose();
      return;
    }
    if (m?.type === 'dirty') {
      form.draft = m.dirty && m.values ? sanitize(m.values) : undefined;
      form.panel.title = formTitle(form.memory, m.dirty);
      return;
    }
    if (m?.type !== 'save' || !m.values) return;
    const values = sanitize(m.values);
    const invalid = validateEdit(values, form.opened);
    if (invalid) {
      void form.panel.webview.postMessage({ type: 'error', message: invalid });
      return;
    }
    const patch = editPatch(form.opened, values);
    if (Object.keys(patch).length === 0) {
      this.statusBar.flash(`Nothing changed in “${shortText(form.memory.text, 40)}”`);
      form.resolve(undefined);
      form.settled = true;
      form.panel.dispose();
      return;
    }
    try {
      const updated = await this.ctx.request(UpdateRequest, { id: form.memory.id, patch, by: currentUser() });
      this.statusBar.flash(savedMessage(form.memory, patch));
      form.resolve(updated);
      form.settled = true;
      form.panel.dispose();
    } catch (err) {
      logFailure(this.ctx.log, `Saving the memory`, err);
      void form.panel.webview.postMessage({ type: 'error', message: describeError(err) });
    }
  }

  /** The tab was closed with edits in it: nothing is lost, they can come back. */
  private offerReopen(form: OpenForm): void {
    const draft = form.draft;
    void vscode.window
      .showWarningMessage(
        `Your changes to “${shortText(form.memory.text, 40)}” were not saved.`,
        'Reopen Them',
      )
      .then((choice) => {
        if (choice === 'Reopen Them' && draft) void this.open(form.memory, draft);
      });
  }

  private html(webview: vscode.Webview, form: OpenForm): string {
    const { nonce, csp } = strictCsp(webview);
    const m = form.memory;
    const v = form.draft ?? form.opened;
    const zone = config.display.timeZone();
    return `${pageHead(csp, 'Edit Memory')}
<style nonce="${nonce}">
${FORM_CSS}</style>
</head>
<body>
${formBody(m, v, zone)}<script nonce="${nonce}">
${formScript(v, form.opened)}</script>
</body>
</html>`;
  }
}

/** The form: the memory's text, category, actionable, confidence and sources, with Save and Cancel. */
function formBody(m: Memory, v: EditValues, zone: string | undefined): string {
  const categories = CATEGORIES.map(
    (
      c,
    ) => `<label class="choice"><input type="radio" name="category" value="${c}"${c === v.category ? ' checked' : ''}>
<span><b>${esc(CATEGORY_LABEL[c])}</b>${c === m.category ? ' <i>(current)</i>' : ''}<br><small>${esc(CATEGORY_DETAIL[c])}</small></span></label>`,
  ).join('\n');
  return `<h1>Edit Memory</h1>
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
<fieldset><legend>Sources <span class="hint">— where it came from</span></legend>
<ul id="sourceList" class="sources"></ul>
<div class="row"><input type="text" id="newSource" aria-label="Add a source" placeholder="Add a source: src/app.ts:12, msg:&lt;id&gt;, https://…"><button type="button" class="secondary" id="addSource">Add</button></div>
</fieldset>
<div class="error" id="error" role="alert" aria-live="assertive"></div>
<div class="confirm" id="confirm" role="alertdialog" aria-labelledby="confirmText" hidden>
<span id="confirmText">Discard your changes to this memory?</span>
<button type="button" class="primary" id="keep">Keep Editing</button>
<button type="button" class="secondary" id="discard">Discard</button>
</div>
<div class="buttons">
<button type="submit" class="primary" id="save">Save</button>
<button type="button" class="secondary" id="cancel">Cancel</button>
</div>
<p class="hint">Only what you change is saved. Ctrl+Enter saves; Escape closes (it asks first when you changed something).</p>
</form>
`;
}

/**
 * The form's behaviour: dirty tracking (reported to the extension with the values, for the tab's title and the
 * unsaved-changes guard), the source list, Ctrl+Enter to save, Escape to close (asking first when changed).
 */
function formScript(v: EditValues, opened: EditValues): string {
  return `const vscode = acquireVsCodeApi();
const $ = (id) => document.getElementById(id);
const SOURCE = ${SOURCE_REF.toString()};
let sources = ${JSON.stringify(v.sources.split('\n').filter(Boolean)).replace(/</g, '\\u003c')};
const values = () => ({
  text: $('text').value,
  category: (document.querySelector('input[name=category]:checked') || {}).value,
  confidence: $('confidence').value,
  actionable: $('actionable').checked,
  sources: sources.join('\\n'),
});
const opened = ${JSON.stringify(JSON.stringify(opened)).replace(/</g, '\\u003c')};
let dirty = false;
const check = () => {
  const now = JSON.stringify(values()) !== opened;
  if (now !== dirty || now) vscode.postMessage({ type: 'dirty', dirty: now, values: values() });
  dirty = now;
};
const renderSources = () => {
  const list = $('sourceList');
  list.textContent = '';
  sources.forEach((ref, i) => {
    const li = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = ref;
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'secondary remove';
    remove.textContent = '✕';
    remove.setAttribute('aria-label', 'Remove source ' + ref);
    remove.addEventListener('click', () => { sources.splice(i, 1); renderSources(); check(); $('newSource').focus(); });
    li.append(code, remove);
    list.append(li);
  });
  if (!sources.length) { const li = document.createElement('li'); li.className = 'hint'; li.textContent = 'none'; list.append(li); }
};
const addSource = () => {
  const ref = $('newSource').value.trim();
  if (!ref) return;
  if (!SOURCE.test(ref)) { $('error').textContent = 'A source reads like src/app.ts:12, msg:<id>, file:AGENTS.md#L5 or https://…'; return; }
  if (!sources.includes(ref)) sources.push(ref);
  $('newSource').value = '';
  $('error').textContent = '';
  renderSources();
  check();
};
const save = () => vscode.postMessage({ type: 'save', values: values() });
const askDiscard = () => { $('confirm').hidden = false; $('keep').focus(); };
const keepEditing = () => { $('confirm').hidden = true; $('text').focus(); };
$('form').addEventListener('submit', (e) => { e.preventDefault(); save(); });
$('form').addEventListener('input', check);
$('form').addEventListener('change', check);
$('addSource').addEventListener('click', addSource);
$('newSource').addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.ctrlKey && !e.metaKey) { e.preventDefault(); addSource(); } });
$('cancel').addEventListener('click', () => (dirty ? askDiscard() : vscode.postMessage({ type: 'cancel' })));
$('keep').addEventListener('click', keepEditing);
$('discard').addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));
document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); save(); }
  else if (e.key === 'Escape') {
    e.preventDefault();
    if (!$('confirm').hidden) keepEditing();
    else if (dirty) askDiscard();
    else vscode.postMessage({ type: 'cancel' });
  }
});
window.addEventListener('message', (e) => { if (e.data && e.data.type === 'error') { $('error').textContent = e.data.message; } });
renderSources();
check();
$('text').focus();
`;
}

/** The form's look, in the editor's theme colours. */
const FORM_CSS = `body{font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:0 20px 24px;max-width:760px}
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
input[type=text]{font:inherit;color:var(--vscode-input-foreground);background:var(--vscode-input-background);border:1px solid var(--vscode-input-border,transparent);border-radius:2px;padding:4px 6px;flex:1}
.sources{list-style:none;padding:0;margin:4px 0}
.sources li{display:flex;gap:8px;align-items:center;margin:2px 0}
.sources code{overflow-wrap:anywhere}
button.remove{padding:0 8px}
.confirm{display:flex;gap:8px;align-items:center;margin-top:12px;padding:8px;border:1px solid var(--vscode-inputValidation-warningBorder,var(--vscode-focusBorder))}
.confirm[hidden]{display:none}
`;

/** The tab's title: "● Edit: …" while the form holds changes not saved yet. */
function formTitle(m: Memory, dirty: boolean): string {
  return `${dirty ? '● ' : ''}Edit: ${shortText(m.text, 30)}`;
}

/** The values as the webview sent them, typed (it is a web page: anything may arrive). */
function sanitize(v: Partial<EditValues>): EditValues {
  return {
    text: String(v.text ?? ''),
    category: v.category as EditValues['category'],
    confidence: String(v.confidence ?? ''),
    actionable: v.actionable === true,
    sources: String(v.sources ?? ''),
  };
}
