// Builds a platform-specific VSIX (the sidecar's native pieces differ per platform):
// production bundles, then @vscode/vsce with --target for this machine.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const targets = { 'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64', 'darwin-x64': 'darwin-x64', 'darwin-arm64': 'darwin-arm64', 'win32-x64': 'win32-x64' };
const target = process.env.MNEMO_VSIX_TARGET ?? targets[`${process.platform}-${process.arch}`];
if (!target) {
  console.error(`mnemo: no VSIX target for ${process.platform}-${process.arch}.`);
  process.exit(1);
}
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const out = `mnemo-${target}-${version}.vsix`;
execFileSync(process.execPath, ['esbuild.mjs', '--production'], { stdio: 'inherit' });
execFileSync(process.execPath, ['node_modules/@vscode/vsce/vsce', 'package', '--target', target, '--out', out, '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links'], {
  stdio: 'inherit',
});
console.log(`Packaged ${out}`);
