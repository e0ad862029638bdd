import assert from 'node:assert/strict';
import { test } from 'node:test';
import { downloadFailure } from '../../sidecar/embed/downloadFailure';

test('a stalled mirror on a port with "404" in it is unreachable, not a mirror without the model', () => {
  // The cause a fresh-root CI run saw (test/unit/embedLocal.test.ts "a stalled mirror times out").
  assert.equal(
    downloadFailure(
      'no data from http://127.0.0.1:40413/Xenova/all-MiniLM-L6-v2/resolve/main/tokenizer.json for 300 ms',
    ),
    'unreachable',
  );
  assert.equal(downloadFailure('fetch failed'), 'unreachable');
  assert.equal(downloadFailure('getaddrinfo ENOTFOUND huggingface.co'), 'unreachable');
});

test('a missing file is the mirror not having the model; anything else is neither', () => {
  assert.equal(
    downloadFailure(
      'Could not locate file: "http://127.0.0.1:8404/Xenova/m/resolve/main/onnx/model_quantized.onnx".',
    ),
    'missing',
  );
  assert.equal(downloadFailure('Request failed with status code 404'), 'missing');
  assert.equal(downloadFailure('Unexpected token < in JSON at position 0'), 'other');
  assert.equal(downloadFailure('http://127.0.0.1:40404/x answered something odd'), 'other');
});
