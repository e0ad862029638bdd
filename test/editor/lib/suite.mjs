// Bundles the extension-host suite (test/editor/suite: index.ts + *.test.ts) with esbuild, for both
// runners: run.mjs (code-server, what CI uses) and desktop.mjs (@vscode/test-electron).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITE_INDEX = path.join(HERE, '..', 'suite', 'index.ts');

/** Bundles index.ts and every *.test.ts of suiteDir into outDir; returns the test bundles in order. */
export async function bundleSuite(suiteDir, outDir) {
  const esbuild = await import('esbuild');
  const testSources = fs
    .readdirSync(suiteDir)
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => path.join(suiteDir, f));
  if (testSources.length === 0) throw new Error(`no *.test.ts in ${suiteDir}`);
  fs.rmSync(outDir, { recursive: true, force: true });
  const entryPoints = [
    { in: SUITE_INDEX, out: 'index' },
    ...testSources.map((f) => ({ in: f, out: path.basename(f, '.ts') })),
  ];
  await esbuild.build({
    entryPoints,
    outdir: outDir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
    sourcemap: 'inline',
    logLevel: 'warning',
    // mocha pulls optional deps through dynamic requires it guards itself.
    logOverride: { 'require-resolve-not-external': 'silent', 'unsupported-dynamic-import': 'silent' },
  });
  return testSources.map((f) => path.join(outDir, `${path.basename(f, '.ts')}.js`));
}
