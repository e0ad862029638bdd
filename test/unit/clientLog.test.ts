import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientLine } from '../../src/clientLog';

test('a normal exit of the sidecar (code 0) is information, not an error', () => {
  assert.deepEqual(clientLine('[Error - 10:01:02 PM] Server process exited with code 0.'), {
    level: 'info',
    message: 'The sidecar process exited normally (code 0).',
  });
});

test('a crash keeps its level and words', () => {
  assert.deepEqual(clientLine('[Error - 10:01:02] Server process exited with code 1.'), {
    level: 'error',
    message: 'Server process exited with code 1.',
  });
  assert.deepEqual(clientLine('[Warn  - 10:01:02] Connection to server got closed.'), {
    level: 'warn',
    message: 'Connection to server got closed.',
  });
});

test('lines without the client prefix pass through unchanged', () => {
  assert.equal(clientLine('sidecar says hello'), undefined);
  assert.equal(clientLine('[sidecar] ready'), undefined);
});
