import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runtimeLoadFailure, workerGone } from '../../sidecar/embed/runtimeFailure';

const BINDING =
  "Module did not self-register: '/x/node_modules/onnxruntime-node/bin/napi-v3/linux/x64/onnxruntime_binding.node'.";

void test('onnxruntime-node in a second thread reads the same whether it failed to load or killed the thread', () => {
  const loaded = runtimeLoadFailure(BINDING);
  const crashed = workerGone(`crashed: ${BINDING}`);
  assert.equal(crashed, loaded);
  for (const m of [loaded, crashed]) {
    assert.match(m, /only one worker thread per process/);
    assert.match(m, /process transport/);
    assert.doesNotMatch(m, /next request restarts it|\n/);
    assert.match(m, /\.$/);
  }
});

void test('any other end of the worker says so, and that the next request restarts it', () => {
  assert.equal(
    workerGone('exited with code 1'),
    'The embedding worker exited with code 1; the next request restarts it.',
  );
  assert.match(
    workerGone('crashed: out of memory'),
    /^The embedding worker crashed: out of memory; the next request restarts it\.$/,
  );
  assert.match(
    runtimeLoadFailure('Cannot find module onnxruntime-node.'),
    /\(Cannot find module onnxruntime-node\); reinstall the extension/,
  );
});
