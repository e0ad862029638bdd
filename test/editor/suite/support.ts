/**
 * What the extension-host tests share: polling, Mnemo activated on the test model, unique texts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MnemoApi } from '../../../src/api';
import { loadRunConfig } from './harness';

const TEST_MODEL = 'Xenova/all-MiniLM-L6-v2';

/** Polls `probe` until it returns a truthy value; fails with `what` and the last error after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

let apiPromise: Promise<MnemoApi> | undefined;

/**
 * Activates Mnemo and points it at the repository's test embedding model (scripts/fetch-model.sh), so
 * nothing is downloaded; the sidecar is restarted once with those settings. User settings live in the
 * harness's fresh per-run state directory, so this does not leak.
 */
export function mnemo(): Promise<MnemoApi> {
  apiPromise ??= (async () => {
    const cfg = loadRunConfig();
    const ext = vscode.extensions.getExtension<MnemoApi>(cfg.expectedExtensionId);
    if (!ext) throw new Error(`${cfg.expectedExtensionId} is not installed`);
    const api = await ext.activate();
    const modelDir =
      process.env.MNEMO_TEST_MODEL_DIR ?? path.join(cfg.extensionDevelopmentPath, '.cache', 'models');
    const settings = vscode.workspace.getConfiguration('mnemo');
    await settings.update('review.dailyDigest', false, vscode.ConfigurationTarget.Global);
    await settings.update('capture.terminal.enabled', false, vscode.ConfigurationTarget.Global);
    if (fs.existsSync(modelDir)) {
      await settings.update('embedding.provider', 'local', vscode.ConfigurationTarget.Global);
      await settings.update('embedding.model', TEST_MODEL, vscode.ConfigurationTarget.Global);
      await settings.update('embedding.modelPath', modelDir, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('mnemo.restartSidecar');
    }
    await api.ready(120_000);
    return api;
  })();
  return apiPromise;
}

/** A tag unique to this run, put into seeded texts so tests share nothing. */
export function uniqueTag(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
}
