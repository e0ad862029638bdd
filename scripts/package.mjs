// Builds a platform-specific VSIX (the sidecar's native pieces differ per platform).
//
// vsce would pack every production dependency as installed: 175 MB for linux-x64, most of it debug
// info in the Chroma bindings, browser builds (onnxruntime-web, transformers.js' wasm files) and an
// image library (sharp) that a text-only sidecar never calls. So the extension is staged first:
//   1. production bundles (esbuild --production);
//   2. a staging folder with the files .vscodeignore allows and the packages esbuild leaves external
//      with what they depend on: only packages that run, only this target's binaries, only the
//      build Node loads, no source maps, type declarations or wasm;
//   3. native binaries stripped of debug info (`strip --strip-debug`: the Chroma bindings 437 -> 55 MB);
//   4. `sharp` replaced by a module that refuses image input with one sentence (transformers.js
//      requires it at load time; Mnemo embeds text only);
//   5. @vscode/vsce packs the staging folder with --no-dependencies, and the size is printed.
// The pruned tree goes to dist/node_modules (vsce's --no-dependencies leaves out a top-level
// node_modules; Node resolves dist/*.js's requires from dist/node_modules first).
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
process.chdir(ROOT);

const targets = {
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-x64',
};
const target = process.env.MNEMO_VSIX_TARGET ?? targets[`${process.platform}-${process.arch}`];
if (!target) {
  console.error(`mnemo: no VSIX target for ${process.platform}-${process.arch}.`);
  process.exit(1);
}
const [os, arch] = target.split('-');
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const out = resolve(`mnemo-${target}-${manifest.version}.vsix`);
const stage = join(ROOT, '.cache', 'vsix', target);
const stagedModules = join(stage, 'dist'); // the pruned tree lands in dist/node_modules

/** Production packages that never run in the sidecar or the extension host. */
const PRUNED = new Set([
  'onnxruntime-web', // transformers.js' browser backend; the Node build marks it "(ignored)"
  '@img/sharp-linux-x64', // sharp's native image library (replaced, see SHARP_SHIM)
  '@img/sharp-libvips-linux-x64',
  '@img/colour',
  '@types/node', // type declarations
  'undici-types',
]);
/** Files inside kept packages that nothing loads at run time. */
const DROP_FILE = [/\.map$/, /\.d\.[cm]?ts$/, /\.tsbuildinfo$/, /\.(md|markdown)$/i];
const KEEP_FILE = [/^license/i, /^licence/i, /^notice/i, /^readme\.md$/i];

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', ...opts });

console.log(`== Bundling (production)`);
run(process.execPath, ['esbuild.mjs', '--production']);

console.log(`== Staging ${relative(ROOT, stage)}`);
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'bin/mnemo', 'media']) {
  if (existsSync(f)) cpSync(f, join(stage, f), { recursive: true });
}
for (const f of [
  'extension.js',
  'chatImportWorker.js',
  'sidecar.js',
  'cli.js',
  'embedWorker.js',
  'lexicalWorker.js',
]) {
  if (!existsSync(join('dist', f))) throw new Error(`dist/${f} is missing after the build.`);
  cpSync(join('dist', f), join(stage, 'dist', f));
}

// What runs from node_modules: the packages esbuild leaves external (esbuild.mjs) and everything
// they depend on, resolved the way Node resolves them. Everything else is inside the bundles.
const { runtimeExternals } = await import(join(ROOT, 'esbuild.mjs'));
const seen = new Map(); // package dir (relative to ROOT) -> name
function packageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === ROOT || dir === dirname(dir)) return undefined;
  }
}
function addPackage(name, fromDir, optional) {
  if (PRUNED.has(name) || name === 'sharp') return;
  const dir = packageDir(name, fromDir);
  if (!dir) {
    if (optional) return; // another platform's binary, or an optional peer
    throw new Error(`${name} (needed at run time) is not installed: run npm ci.`);
  }
  const rel = relative(ROOT, dir);
  if (seen.has(rel)) return;
  seen.set(rel, name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const dep of Object.keys(pkg.dependencies ?? {})) addPackage(dep, dir, false);
  for (const dep of Object.keys(pkg.optionalDependencies ?? {})) addPackage(dep, dir, true);
}
for (const name of runtimeExternals) if (name !== 'vscode') addPackage(name, ROOT, false);

/** onnxruntime-node ships binaries for every platform; keep this target's. */
function platformFilter(rel) {
  const m = /^node_modules\/onnxruntime-node\/bin\/napi-v3\/([^/]+)(?:\/([^/]+))?/.exec(
    rel.split(sep).join('/'),
  );
  if (!m) return true;
  if (m[1] !== os) return false;
  return m[2] === undefined || m[2] === arch;
}
/** Per-package files that are never loaded: other builds than the one Node resolves. */
const DROP_IN = {
  '@huggingface/transformers': (r) =>
    /^(src|types)\//.test(r) || (/^dist\//.test(r) && !/^dist\/transformers\.node\.[cm]?js$/.test(r)),
  'onnxruntime-node': (r) => /^(script|lib)\//.test(r) && !/\.js$/.test(r),
};

for (const [rel, name] of seen) {
  const src = join(ROOT, rel);
  const dropIn = DROP_IN[name];
  cpSync(src, join(stagedModules, rel), {
    recursive: true,
    filter: (from) => {
      const r = relative(ROOT, from);
      if (r !== rel && r.startsWith(rel + sep + 'node_modules')) return false; // nested packages are staged on their own
      if (!platformFilter(r)) return false;
      const name = basename(from);
      if (statSync(from).isDirectory())
        return r === rel || !/^(test|tests|__tests__|docs|example|examples|\.github)$/.test(name);
      if (dropIn && dropIn(relative(src, from).split(sep).join('/'))) return false;
      if (KEEP_FILE.some((k) => k.test(name))) return true;
      return !DROP_FILE.some((d) => d.test(name));
    },
  });
}
const copied = seen.size;

// libonnxruntime.so.1.21.0 is a byte-for-byte copy of libonnxruntime.so.1 (the npm tarball cannot
// hold a symlink); the binding links against the latter only.
const ortDir = join(stagedModules, 'node_modules', 'onnxruntime-node', 'bin', 'napi-v3', os, arch);
if (existsSync(ortDir)) {
  for (const f of readdirSync(ortDir))
    if (/^libonnxruntime\.so\.\d+\.\d+\.\d+$/.test(f)) rmSync(join(ortDir, f));
}

// transformers.js requires `sharp` when it loads (for images); Mnemo embeds text only.
const SHARP_SHIM = `'use strict';
// Mnemo's packaged stand-in for sharp: transformers.js requires it at load time for image input,
// which Mnemo never gives it (text embeddings only). Any call says so in one sentence.
module.exports = function sharp() {
  throw new Error('Image input is not supported: Mnemo embeds text only.');
};
`;
mkdirSync(join(stagedModules, 'node_modules', 'sharp'), { recursive: true });
writeFileSync(
  join(stagedModules, 'node_modules', 'sharp', 'package.json'),
  JSON.stringify({ name: 'sharp', version: '0.0.0-mnemo', main: 'index.js', license: 'MIT' }, null, 2),
);
writeFileSync(join(stagedModules, 'node_modules', 'sharp', 'index.js'), SHARP_SHIM);

// Native binaries without their debug info.
function* walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}
if (os === 'linux') {
  for (const f of walk(join(stagedModules, 'node_modules'))) {
    if (!/\.node$|\.so(\.\d+)*$/.test(f)) continue;
    const before = statSync(f).size;
    try {
      execFileSync('strip', ['--strip-debug', f]);
    } catch (e) {
      throw new Error(`strip --strip-debug ${relative(stage, f)} failed (install binutils): ${e.message}`);
    }
    const after = statSync(f).size;
    if (before - after > 1 << 20)
      console.log(`   stripped ${relative(stage, f)}: ${mb(before)} -> ${mb(after)}`);
  }
}

// The staged extension must still do its main job: the staged CLI ingests a sample session and
// recalls it with the real model, on the stripped Chroma server and the pruned tree. Skipped (with a
// line saying so) only when no model folder is there: `npm test` always has one.
const modelDir = process.env.MNEMO_TEST_MODEL_DIR ?? join(ROOT, '.cache', 'models');
if (existsSync(join(modelDir, 'Xenova', 'all-MiniLM-L6-v2', 'config.json'))) {
  console.log('== Smoke test of the staged extension (ingest + recall with its own CLI)');
  const dataDir = join(ROOT, '.cache', 'vsix', `smoke-${target}`);
  rmSync(dataDir, { recursive: true, force: true });
  const env = {
    ...process.env,
    MNEMO_DATA_DIR: dataDir,
    MNEMO_EMBEDDING_MODEL: 'Xenova/all-MiniLM-L6-v2',
    MNEMO_EMBEDDING_MODEL_PATH: modelDir,
  };
  const cli = (...args) =>
    execFileSync(process.execPath, [join(stage, 'dist', 'cli.js'), ...args], {
      env,
      encoding: 'utf8',
      timeout: 180_000,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  cli('ingest', '--project', 'smoke', join(ROOT, 'samples', 'sessions', 'editor-preferences.json'));
  const hits = JSON.parse(cli('recall', '--project', 'smoke', '--json', 'which editor should you use?'));
  rmSync(dataDir, { recursive: true, force: true });
  if (!hits.some((h) => /vim/.test(h.text)))
    throw new Error(
      'the staged extension did not recall the sample memory: the pruned tree is missing something.',
    );
  console.log(`   recalled ${hits.length} memories, the first: ${hits[0].text}`);
} else {
  console.log(`== Smoke test skipped: no model in ${modelDir} (scripts/fetch-model.sh puts one there).`);
}

// vsce applies .vscodeignore to the staging folder: everything staged is meant to ship.
writeFileSync(join(stage, '.vscodeignore'), '# Staged by scripts/package.mjs: everything here ships.\n');
let stagedBytes = 0;
let stagedFiles = 0;
for (const f of walk(stage)) {
  stagedBytes += statSync(f).size;
  stagedFiles++;
}
console.log(`   ${copied} packages, ${stagedFiles} files, ${mb(stagedBytes)} unpacked`);

console.log(`== Packaging ${basename(out)}`);
rmSync(out, { force: true });
run(
  process.execPath,
  [
    join(ROOT, 'node_modules/@vscode/vsce/vsce'),
    'package',
    '--no-dependencies',
    '--target',
    target,
    '--out',
    out,
    '--allow-missing-repository',
    '--skip-license',
    '--no-rewrite-relative-links',
  ],
  {
    cwd: stage,
  },
);
const size = statSync(out).size;
console.log(`Packaged ${basename(out)}: ${mb(size)} (${stagedFiles} files, ${mb(stagedBytes)} unpacked)`);
const limit = 60 * 1024 * 1024;
if (size > limit) {
  console.error(`mnemo: the VSIX is ${mb(size)}, over the 60 MB budget.`);
  process.exit(1);
}
