import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lockHolder, pidAlive } from '../../sidecar/util/process';

test('a lock file without a valid pid names no live holder (pid 0 would signal our own process group)', () => {
  assert.equal(pidAlive(0), false);
  assert.equal(pidAlive(-1), false);
  assert.equal(pidAlive(Number.NaN), false);
  assert.equal(pidAlive(process.pid), true);
  for (const text of ['', '0', '-5', 'abc', '12x', '\n'])
    assert.equal(lockHolder(text), undefined, JSON.stringify(text));
  assert.equal(lockHolder(`${process.pid}\n`), process.pid);
});
