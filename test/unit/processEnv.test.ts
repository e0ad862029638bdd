/**
 * The malloc arenas of the processes Mnemo starts: two for the sidecar and the embedding worker, glibc's
 * default for Chroma, and whatever the user set for all of them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childEnv, defaultArenasEnv, MALLOC_ARENAS } from '../../sidecar/shared/processEnv';

void test('the sidecar and its worker get two malloc arenas; Chroma, started below them, the default', () => {
  const sidecar = childEnv({ PATH: '/usr/bin' });
  assert.equal(sidecar.MALLOC_ARENA_MAX, MALLOC_ARENAS);
  assert.equal(sidecar.PATH, '/usr/bin');
  const worker = childEnv(sidecar);
  assert.equal(worker.MALLOC_ARENA_MAX, MALLOC_ARENAS);
  const chroma = defaultArenasEnv(sidecar);
  assert.equal(chroma.MALLOC_ARENA_MAX, undefined);
  assert.equal(chroma.PATH, '/usr/bin');
});

void test("a user's MALLOC_ARENA_MAX reaches every process unchanged", () => {
  const sidecar = childEnv({ MALLOC_ARENA_MAX: '8' });
  assert.equal(sidecar.MALLOC_ARENA_MAX, '8');
  assert.equal(childEnv(sidecar).MALLOC_ARENA_MAX, '8');
  assert.equal(defaultArenasEnv(sidecar).MALLOC_ARENA_MAX, '8');
});
