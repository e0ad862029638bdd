/**
 * Mnemo's version as the sidecar and its MCP server report it (the extension's is package.json's
 * `version`; test/unit/version.test.ts keeps the two the same).
 */
export const MNEMO_VERSION = '0.1.0';
