// Bundles the extension, the sidecar, the CLI and the embedding worker. Native and runtime-heavy
// packages stay external and ship in node_modules (see .vscodeignore).
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Loaded from node_modules at run time: native bindings, the Chroma server, model runtime. */
export const runtimeExternals = [
  'vscode',
  'chromadb',
  '@huggingface/transformers',
  'onnxruntime-node',
  'onnxruntime-web',
  'onnxruntime-common',
  'sharp',
  '@node-rs/jieba',
  '@secretlint/core',
  // The same instance @secretlint/core marks: sidecar/pipeline/redact.ts silences it (a bundled copy would be a second one).
  '@secretlint/profiler',
  '@secretlint/secretlint-rule-preset-recommend',
  'archiver',
  'archiver-zip-encrypted',
  // Loaded lazily through createRequire (sidecar/pipeline/rules.ts), so esbuild never sees it.
  'en-pos',
  // Loads its SQLite .wasm from its own folder at run time.
  'node-sqlite3-wasm',
];

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  external: runtimeExternals,
  // jsonc-parser's main build is UMD, whose require('./impl/…') calls esbuild cannot follow: bundle its ES build.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  logLevel: 'warning',
};

const builds = [
  { entryPoints: { extension: 'src/extension.ts', chatImportWorker: 'src/capture/chatImportWorker.ts' } },
  {
    entryPoints: {
      sidecar: 'sidecar/main.ts',
      cli: 'sidecar/cli.ts',
      embedWorker: 'sidecar/embed/localWorker.ts',
      lexicalWorker: 'sidecar/store/lexical/lexicalWorker.ts',
    },
  },
];

for (const b of builds) {
  const opts = { ...common, ...b, outdir: 'dist' };
  if (watch) {
    const ctx = await esbuild.context(opts);
    await ctx.watch();
  } else {
    await esbuild.build(opts);
  }
}
