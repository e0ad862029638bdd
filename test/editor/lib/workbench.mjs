// Playwright helpers for VS Code 1.100's web workbench (as served by
// code-server 4.100.x). Selectors are the workbench's own CSS classes.

/** Escapes a string for use inside a CSS attribute selector value. */
const cssString = (s) => JSON.stringify(String(s));

export class Workbench {
  /** @param {import('playwright-core').Page} page */
  constructor(page, { log = () => {} } = {}) {
    this.page = page;
    this.log = log;
  }

  /** Waits for the workbench shell and the extension host to be up. */
  async waitReady(timeoutMs = 90_000) {
    const p = this.page;
    await p.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
    await p
      .locator('.part.activitybar, .part.sidebar')
      .first()
      .waitFor({ state: 'visible', timeout: timeoutMs });
    // The status bar appears once the layout is restored; the remote indicator once connected.
    await p.locator('.part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
  }

  /**
   * Records, in the page, the last focus moves and the quick input's class / inert changes, so a
   * palette that will not take keys can say what happened just before (see `queryPalette`).
   */
  async installTrace() {
    // Installed for every load of the page too: a reload (a test may reload the window) starts a new
    // document without it.
    const install = () => {
      if (window.__mnemoTrace || window !== window.top) return;
      const trace = (window.__mnemoTrace = []);
      const t0 = Date.now();
      const name = (el) =>
        el && el.tagName
          ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].slice(0, 3).join('.')}`
          : String(el);
      const note = (what) => {
        window.__mnemoFocusMoved = Date.now();
        trace.push(`${Date.now() - t0}ms ${what}`);
        if (trace.length > 40) trace.shift();
      };
      note('trace installed');
      document.addEventListener('focusin', (e) => note(`focus ${name(e.target)}`), true);
      window.addEventListener('blur', () => note('window blur'));
      window.addEventListener('focus', () => note('window focus'));
      document.addEventListener('visibilitychange', () => note(`page ${document.visibilityState}`));
      const observer = new MutationObserver((records) => {
        for (const r of records) {
          const el = r.target;
          if (!(el instanceof HTMLElement) || !el.classList.contains('quick-input-widget')) continue;
          note(
            `quick-input ${r.attributeName}: class="${el.className}" inert=${el.inert} display=${el.style.display}`,
          );
        }
      });
      const observe = () =>
        observer.observe(document.documentElement, {
          subtree: true,
          attributes: true,
          attributeFilter: ['class', 'inert', 'style'],
        });
      if (document.documentElement) observe();
      else document.addEventListener('DOMContentLoaded', observe, { once: true });
    };
    await this.page
      .addInitScript(install)
      .catch((e) => this.log(`trace not installed on loads: ${e.message}`));
    await this.page.evaluate(install).catch((e) => this.log(`trace not installed: ${e.message}`));
  }

  /** Closes any quick input / notification / context menu that may be open. */
  async dismiss() {
    for (let i = 0; i < 3; i++) {
      if (
        !(await this.page.locator('.quick-input-widget:visible, .context-view .monaco-menu:visible').count())
      )
        break;
      await this.page.keyboard.press('Escape');
    }
  }

  /**
   * Focuses the editor area so keystrokes go to the workbench, not to a stale focus: the active
   * tab when there is one (clicking another spot of the tab bar could switch the active editor,
   * and commands act on it; a webview editor covers the editor area with an iframe, so clicks
   * into the area would wait for actionability), else the empty editor area.
   */
  async focusEditorArea() {
    const activeTab = this.page.locator('.part.editor .tabs-container .tab.active').first();
    if (await activeTab.isVisible().catch(() => false)) {
      await activeTab.click({ position: { x: 12, y: 12 }, timeout: 5000 }).catch(() => {});
    } else {
      await this.page
        .locator('.part.editor')
        .click({ position: { x: 20, y: 20 }, timeout: 5000 })
        .catch(() => {});
    }
  }

  /**
   * Waits (at most `maxMs`) until the focus has stayed put for `quietMs`. Focusing a webview editor
   * (clicking its tab, closing what covered it) moves the focus into its iframe a few hundred ms later,
   * and a palette opened in between closes at once: VS Code 1.139's quick input then sits inert
   * while it animates out.
   */
  async settleFocus({ quietMs = 400, maxMs = 3000 } = {}) {
    if (!(await this.webviewShown())) return;
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline) {
      const moved = await this.page.evaluate(() => window.__mnemoFocusMoved ?? 0).catch(() => 0);
      const quiet = Date.now() - moved;
      if (quiet >= quietMs) return;
      await this.page.waitForTimeout(Math.min(quietMs - quiet + 20, Math.max(0, deadline - Date.now())));
    }
  }

  /** True when a webview (a details page, a preview, a form) is on screen: its iframe can take the focus late. */
  async webviewShown() {
    return this.page
      .evaluate(() =>
        [...document.querySelectorAll('iframe.webview')].some(
          (f) => f.getClientRects().length > 0 && getComputedStyle(f).visibility !== 'hidden',
        ),
      )
      .catch(() => false);
  }

  /**
   * True once the palette's box has the focus and takes keys (not animating out); with a webview on
   * screen, for `stableMs` in a row (its late focus would close the palette).
   */
  async paletteTakesKeys({ stableMs = 300, timeoutMs = 2000 } = {}) {
    const settle = (await this.webviewShown()) ? stableMs : 0;
    const ready = () =>
      this.page
        .evaluate(() => {
          const w = document.querySelector('.quick-input-widget');
          const input = w?.querySelector('input.input');
          return (
            !!w &&
            !!input &&
            w.style.display !== 'none' &&
            !w.closest('[inert]') &&
            !w.classList.contains('quick-input-widget-closing') &&
            document.activeElement === input
          );
        })
        .catch(() => false);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await ready()) {
        if (!settle) return true;
        await this.page.waitForTimeout(settle);
        if (await ready()) return true;
      } else await this.page.waitForTimeout(50);
    }
    return false;
  }

  /** Opens the command palette (F1) and returns the quick input locator. */
  async openCommandPalette() {
    const widget = this.page.locator('.quick-input-widget');
    const deadline = Date.now() + 45_000;
    for (let attempt = 1; ; attempt++) {
      await this.dismiss();
      if (attempt === 1) await this.focusEditorArea();
      else {
        // F1 went nowhere: the focus is stuck in a webview's iframe (a preview) or a panel. Hand it back to
        // the workbench window, whose keybinding service handles F1, and press it again.
        await this.page.evaluate(
          () => document.activeElement instanceof HTMLElement && document.activeElement.blur(),
        );
        await this.page
          .locator('.part.statusbar')
          .focus()
          .catch(() => {});
      }
      await this.settleFocus();
      await this.page.keyboard.press('F1');
      const left = deadline - Date.now();
      const shown = await widget
        .waitFor({ state: 'visible', timeout: Math.max(1000, Math.min(left, 8000)) })
        .then(() => true)
        .catch(() => false);
      // Shown is not enough: a webview that takes the focus just after F1 closes it again.
      if (shown && (await this.paletteTakesKeys())) return widget;
      if (shown) this.log(`palette attempt ${attempt}: shown, then lost the focus; pressing F1 again`);
      if (Date.now() >= deadline) {
        await widget.waitFor({ state: 'visible', timeout: 1000 }); // throws with the locator's call log
        return widget;
      }
    }
  }

  /**
   * Opens the palette, types `>filter` and returns the labels of the entries
   * shown, leaving the palette open. Right after startup the remote
   * extensions' commands are not registered yet and the palette snapshot
   * taken when it opens does not refresh, so this reopens it (bounded) until
   * an entry containing `expect` shows up or `timeoutMs` passes.
   */
  async queryPalette(filter, { expect = filter, timeoutMs = 30_000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    let labels = [];
    for (let attempt = 1; ; attempt++) {
      const widget = await this.openCommandPalette();
      // The palette closes when it loses the focus: a webview page that finishes loading just after F1
      // (a memory's details) takes it. A person presses F1 again; so does this.
      const typed = await widget
        .locator('input.input')
        .fill(`>${filter}`, { timeout: 5000 })
        .then(() => true)
        .catch(async (e) => {
          // What kept the palette from taking keys (it was once "inert" for 30 s): logged on every miss
          // and named in the failure, so the next occurrence says what held the focus and what the
          // quick input went through just before.
          const state = await this.page
            .evaluate(() => {
              const name = (el) =>
                el
                  ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].slice(0, 3).join('.')}`
                  : '';
              const qi = document.querySelector('.quick-input-widget');
              return {
                quickInput: qi && `class="${qi.className}" inert=${qi.inert} display=${qi.style.display}`,
                hasFocus: document.hasFocus(),
                visibility: document.visibilityState,
                trace: window.__mnemoTrace ?? [],
                inert: [...document.querySelectorAll('[inert]')].slice(0, 5).map(name),
                active: name(document.activeElement),
                dialogs: [...document.querySelectorAll('.monaco-dialog-box, [role="dialog"], .context-view')]
                  .filter((el) => el.getClientRects().length > 0)
                  .slice(0, 5)
                  .map(
                    (el) =>
                      `${name(el)} ${(el.getAttribute('aria-label') ?? el.textContent ?? '').slice(0, 80)}`,
                  ),
              };
            })
            .catch(() => undefined);
          const pages = this.page
            .context()
            .pages()
            .map((p) => p.url().slice(0, 80));
          if (state) state.pages = pages;
          this.log(`palette attempt ${attempt} took no keys: ${JSON.stringify(state)}`);
          if (Date.now() < deadline) return false;
          throw new Error(
            `the palette took no keys for 30 s; workbench state: ${JSON.stringify(state)}\n${e.message}`,
          );
        });
      if (!typed) continue;
      const rows = widget.locator('.quick-input-list .monaco-list-row');
      const match = rows.filter({ hasText: expect }).first();
      const wait = Math.min(3000, Math.max(500, deadline - Date.now()));
      const found = await match
        .waitFor({ state: 'visible', timeout: wait })
        .then(() => true)
        .catch(() => false);
      labels = await rows.evaluateAll((els) =>
        els.map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim()),
      );
      if (found || Date.now() >= deadline) return { widget, found, labels, match, attempts: attempt };
      await this.page.keyboard.press('Escape');
    }
  }

  /** Labels of the command palette entries matching `filter` (palette closed afterwards). */
  async paletteEntries(filter, opts) {
    const { labels } = await this.queryPalette(filter, opts);
    await this.dismiss();
    return labels;
  }

  /**
   * Runs a command from the command palette (F1) by its full title as shown
   * there ("Category: Title"): clicks its entry, or with `keyboard: true`
   * presses Enter on it (it must be the palette's active row). Returns once the
   * palette is gone — hidden, or replaced by the command's own quick input.
   */
  async runCommand(fullTitle, { keyboard = false, ...opts } = {}) {
    const { widget, found, labels, match } = await this.queryPalette(fullTitle, opts);
    if (!found) {
      await this.dismiss();
      throw new Error(
        `"${fullTitle}" not in the command palette; it showed: ${labels.slice(0, 5).join(' | ') || 'nothing'}`,
      );
    }
    if (keyboard) {
      const active = widget.locator('.quick-input-list .monaco-list-row.focused').first();
      const label =
        (await active.getAttribute('aria-label').catch(() => null)) ??
        (await active.textContent().catch(() => '')) ??
        '';
      if (!label.includes(fullTitle)) {
        await this.dismiss();
        throw new Error(`"${fullTitle}" is not the palette's active entry (that is "${label}")`);
      }
      await this.page.keyboard.press('Enter');
    } else {
      await match.click();
    }
    const input = widget.locator('input.input');
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (!(await widget.isVisible())) return;
      const value = await input.inputValue({ timeout: 1000 }).catch(() => '');
      if (!value.startsWith('>')) return;
      await this.page.waitForTimeout(100);
    }
  }

  /**
   * Waits until the keyboard focus is in the quick input's text box. Keystrokes typed before
   * that (e.g. while a webview editor still holds the focus) would go elsewhere.
   */
  async waitQuickInputFocused(timeoutMs = 10_000) {
    await this.page.waitForFunction(
      () => {
        const el = document.activeElement;
        return !!el && el.tagName === 'INPUT' && !!el.closest('.quick-input-widget');
      },
      undefined,
      { timeout: timeoutMs, polling: 50 },
    );
  }

  /** Waits for a notification toast containing `text` (string or RegExp); returns its locator. */
  async waitForNotification(text, timeoutMs = 20_000) {
    const toast = this.page
      .locator('.notification-toast-container, .notifications-toasts .monaco-list-row', { hasText: text })
      .first();
    await toast.waitFor({ state: 'visible', timeout: timeoutMs });
    return toast;
  }

  /** The activity bar entry for a view container, by its title. */
  activityBarItem(title) {
    return this.page
      .locator(`.part.activitybar .action-item a.action-label[aria-label^=${cssString(title)}]`)
      .first();
  }

  /**
   * Opens a view container from the activity bar by its title and waits for
   * its side bar to show. Returns the side bar locator.
   */
  async openViewContainer(title, timeoutMs = 20_000) {
    const item = this.activityBarItem(title);
    await item.waitFor({ state: 'visible', timeout: timeoutMs });
    const li = item.locator('xpath=ancestor::li[contains(@class,"action-item")][1]');
    const alreadyOpen = /\bchecked\b/.test((await li.getAttribute('class')) ?? '');
    // Click the item, not its icon: a view's badge (e.g. pending reviews) sits over the icon and would
    // take the click; the item handles clicks on either.
    if (!alreadyOpen) await li.click();
    const sidebar = this.page.locator('.part.sidebar');
    await sidebar.waitFor({ state: 'visible', timeout: timeoutMs });
    await this.page
      .locator(`.part.sidebar .composite.title h2[title], .part.sidebar .title-label h2`, { hasText: title })
      .first()
      .waitFor({ state: 'visible', timeout: timeoutMs });
    return sidebar;
  }

  /**
   * Widens the side bar to at least `width` px by dragging its sash (for readable screenshots
   * of tree descriptions). Best effort: returns the resulting width.
   */
  async widenSidebar(width = 480) {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box || box.width >= width) return box?.width;
    const y = box.y + box.height / 2;
    const x = box.x + box.width;
    await this.page.mouse.move(x - 1, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, y, { steps: 8 });
    await this.page.mouse.up();
    return (await this.page.locator('.part.sidebar').boundingBox())?.width;
  }

  /** A view pane (inside the side bar) by its name. */
  viewPane(name) {
    return this.page
      .locator('.part.sidebar .pane', {
        has: this.page.locator(
          `.pane-header[aria-label^=${cssString(name)}], .pane-header h3.title:text-is(${cssString(name)})`,
        ),
      })
      .first();
  }
}
