/** What Mnemo's webviews (edit form, details, dashboard) share: escaping, their strict CSP, the page's head. */
import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';

/** Text safe inside HTML, attributes included. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** A fresh nonce and the Content-Security-Policy that allows only the page's own nonce-tagged style and script. */
export function strictCsp(webview: vscode.Webview, extra: string[] = []): { nonce: string; csp: string } {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    ...extra,
  ].join('; ');
  return { nonce, csp };
}

/** A page's start up to its `<style>`: the doctype, the CSP (from {@link strictCsp}), the viewport, the title. */
export function pageHead(csp: string, title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>`;
}
