/**
 * First real editor tests: the Mnemo extension (mnemo.mnemo, from the repo
 * root's package.json, main ./dist/extension.js — needs `npm run build`) is
 * found by VS Code, activates, and registers every command it contributes.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { loadManifest, loadRunConfig } from './harness';

describe('activation', () => {
  const cfg = loadRunConfig();
  const manifest = loadManifest();
  const id = cfg.expectedExtensionId;

  it(`manifest declares ${id}`, () => {
    assert.equal(`${manifest.publisher}.${manifest.name}`, id);
  });

  it(`extension ${id} is present`, () => {
    const ext = vscode.extensions.getExtension(id);
    assert.ok(
      ext,
      `vscode.extensions.getExtension('${id}') is undefined; installed: ${vscode.extensions.all
        .map((e) => e.id)
        .filter((x) => !x.startsWith('vscode.'))
        .join(', ')}`,
    );
    assert.equal(
      path.resolve(ext.extensionUri.fsPath),
      path.resolve(cfg.extensionDevelopmentPath),
      'the extension under test must be the development copy',
    );
  });

  it(`extension ${id} activates`, async function () {
    this.timeout(Math.max(cfg.mochaTimeoutMs, 60_000));
    const main = manifest.main ? path.join(cfg.extensionDevelopmentPath, manifest.main) : undefined;
    if (main && !fs.existsSync(main) && !fs.existsSync(`${main}.js`)) {
      assert.fail(`${main} does not exist: build the extension first (npm run build)`);
    }
    const ext = vscode.extensions.getExtension(id);
    assert.ok(ext, `${id} not found`);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('registers every command contributed in package.json', async () => {
    const ext = vscode.extensions.getExtension(id);
    assert.ok(ext, `${id} not found`);
    if (!ext.isActive) await ext.activate();
    const contributed = (manifest.contributes?.commands ?? []).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered after activation: ${missing.join(', ')}`);
    console.log(`[activation] ${contributed.length} contributed command(s) registered`);
  });
});
