/**
 * Shared by the suite runner (index.ts) and the *.test.ts files: the run
 * configuration that test/editor/run.mjs writes next to the bundle.
 *
 * The tests run in VS Code's (remote, Node) extension host started by
 * code-server, not in the run.mjs process: configuration and results travel
 * through files. run.mjs also sets MNEMO_EDITOR_RUN_CONFIG in code-server's
 * environment, which the extension host inherits; the file next to the bundle
 * is the fallback.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface RunConfig {
  /** Absolute path of the extension under test (the folder holding its package.json). */
  extensionDevelopmentPath: string;
  /** `publisher.name` that must be present, e.g. `mnemo.mnemo`. */
  expectedExtensionId: string;
  /** Where the runner writes its results JSON. */
  resultsPath: string;
  /** Absolute paths of the bundled test files, in run order. */
  testFiles: string[];
  /** Per-test mocha timeout. */
  mochaTimeoutMs: number;
  /** Optional mocha --grep. */
  grep?: string;
  /**
   * When set, the runner waits (bounded) after writing the results until this
   * file exists: run.mjs creates it once it has screenshot the workbench with
   * the extension host still alive (after the runner returns, the extension
   * host shuts down and views show "no data provider").
   */
  screenshotAckPath?: string;
}

export const RUN_CONFIG_FILE = 'run-config.json';

let cached: RunConfig | undefined;

export function loadRunConfig(): RunConfig {
  if (cached) return cached;
  const fromEnv = process.env.MNEMO_EDITOR_RUN_CONFIG;
  const candidates = [fromEnv, path.join(__dirname, RUN_CONFIG_FILE)].filter(
    (p): p is string => typeof p === 'string' && p.length > 0,
  );
  for (const file of candidates) {
    if (fs.existsSync(file)) {
      cached = JSON.parse(fs.readFileSync(file, 'utf8')) as RunConfig;
      return cached;
    }
  }
  throw new Error(
    `editor suite: no run config found (tried ${candidates.join(', ')}); run through test/editor/run.mjs`,
  );
}

export interface ExtensionManifest {
  name: string;
  publisher: string;
  main?: string;
  activationEvents?: string[];
  contributes?: {
    commands?: Array<{ command: string; title?: string; category?: string }>;
    viewsContainers?: Record<string, Array<{ id: string; title: string }>>;
    views?: Record<string, Array<{ id: string; name: string }>>;
  };
}

export function loadManifest(): ExtensionManifest {
  const cfg = loadRunConfig();
  return JSON.parse(
    fs.readFileSync(path.join(cfg.extensionDevelopmentPath, 'package.json'), 'utf8'),
  ) as ExtensionManifest;
}
