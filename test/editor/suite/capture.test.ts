/**
 * The capture helpers that read VS Code settings, in the extension host. The vscode-free helpers (chat
 * export parsing, terminal output, time formatting, source refs) are unit-tested in test/unit.
 */
import * as assert from 'node:assert/strict';
import { compilePatterns, DEFAULT_TERMINAL_EXCLUDES } from '../../../src/config';

describe('capture helpers', () => {
  it('excludes trivial commands and anything with a password by default', () => {
    const { regexes, invalid } = compilePatterns(DEFAULT_TERMINAL_EXCLUDES);
    assert.deepEqual(invalid, []);
    const excluded = (c: string): boolean => regexes.some((r) => r.test(c));
    assert.ok(excluded('ls -la'));
    assert.ok(excluded('  cd src'));
    assert.ok(excluded('mysql --Password=hunter2'));
    assert.ok(!excluded('npm test'));
    assert.ok(!excluded('lsof -i :8080'));
  });
});
