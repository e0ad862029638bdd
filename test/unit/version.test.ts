import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MNEMO_VERSION } from '../../sidecar/shared/version';

test('the sidecar and its MCP server report the version the extension is published with', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  assert.equal(MNEMO_VERSION, pkg.version);
});
