/**
 * How an agent (or VS Code itself) starts Mnemo's MCP server on the extension's own data folder: this
 * editor's runtime as Node (`ELECTRON_RUN_AS_NODE`), the bundled `dist/cli.js mcp`, and the non-secret
 * settings the sidecar gets from the editor (embedding model, Chroma URL, user) as environment, so the
 * MCP server reads and writes the same store with the same model. Secrets (API keys, the Chroma token)
 * are never written into an agent's config. No `vscode` import: unit-tested at node level.
 */
import { join } from 'node:path';
import type { HookLaunch } from '../sidecar/shared/captureHooks';
import type { McpLaunch } from '../sidecar/shared/connect';
import type { InitializationOptions } from '../sidecar/protocol';

/** The non-secret settings the sidecar gets from the editor, as environment for another process of the CLI. */
function launchEnv(options: InitializationOptions): Record<string, string> {
  const env: Record<string, string> = { ELECTRON_RUN_AS_NODE: '1' };
  const e = options.embedding ?? {};
  const set = (k: string, v: string | undefined | null) => {
    if (v) env[k] = v;
  };
  set('MNEMO_EMBEDDING_PROVIDER', e.provider);
  set('MNEMO_EMBEDDING_MODEL', e.model);
  set('MNEMO_EMBEDDING_MODEL_PATH', e.modelPath);
  set('MNEMO_EMBEDDING_REMOTE_HOST', e.remoteHost);
  set('MNEMO_EMBEDDING_BASE_URL', e.baseUrl);
  set('MNEMO_CHROMA_URL', options.chromaUrl);
  set('MNEMO_USER', options.user);
  return env;
}

export function mcpLaunchFor(o: {
  execPath: string;
  extensionPath: string;
  options: InitializationOptions;
}): McpLaunch {
  return {
    command: o.execPath,
    args: [join(o.extensionPath, 'dist', 'cli.js'), 'mcp', '--data-dir', o.options.dataDir ?? ''],
    env: launchEnv(o.options),
  };
}

/** How an agent's capture hook starts `mnemo capture --hook` on the extension's data folder (sidecar/shared/captureHooks.ts). */
export function hookLaunchFor(o: {
  execPath: string;
  extensionPath: string;
  options: InitializationOptions;
}): HookLaunch {
  return {
    command: o.execPath,
    args: [join(o.extensionPath, 'dist', 'cli.js')],
    options: ['--data-dir', o.options.dataDir ?? ''],
    env: launchEnv(o.options),
  };
}
