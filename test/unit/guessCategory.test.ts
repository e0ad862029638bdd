/** The category of a remembered text when none is given (Remember Selection, bulk import). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guessCategory } from '../../sidecar/ingest/input';

test('a line of code or configuration is an instruction (a reference), never an event', () => {
  for (const line of [
    'const timeout = 1500;',
    'export function deploy(target: string) {',
    "import { api } from './api'",
    'def retry(times=3):',
    'port: 5432',
    '$ make release',
    'client.connect(host, port)',
  ])
    assert.equal(guessCategory(line), 'instruction', line);
});

test('preferences are persona, events episodic, plain facts a reference (instruction)', () => {
  assert.equal(guessCategory('I prefer tabs over spaces in this repository.'), 'persona');
  assert.equal(guessCategory('我习惯用 VIM'), 'persona');
  assert.equal(guessCategory('Yesterday we migrated the billing database to PostgreSQL 16.'), 'episodic');
  assert.equal(guessCategory('上周 网关 宕机 两次'), 'episodic');
  assert.equal(guessCategory('The sidecar talks JSON-RPC over stdio.'), 'instruction');
  assert.equal(guessCategory('Always restart the worker after changing its config.'), 'instruction');
});
