/**
 * Agents on `mnemo mcp` for the sidecar tests: the environment an agent's config gives the server (the
 * test model, the data folder), a project folder with its own git remote, and an SDK client over stdio.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { REPO, TEST_MODEL, testModelPath } from './sidecarSession';

/** The bundled CLI (`npm run build`): `mnemo mcp`, `mnemo recall`, … */
export const CLI = join(REPO, 'dist', 'cli.js');

/** The environment without the caller's MNEMO_* settings, pointed at `dataDir` and the test model. */
export function mcpEnv(dataDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('MNEMO_')) env[k] = v;
  return {
    ...env,
    MNEMO_DATA_DIR: dataDir,
    MNEMO_EMBEDDING_PROVIDER: 'local',
    MNEMO_EMBEDDING_MODEL: TEST_MODEL,
    MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
    MNEMO_EMBEDDING_ALLOW_REMOTE: '0',
    MNEMO_USER: 'tester@ci',
  };
}

/** A project folder with its own git remote, so it maps to a stable project id. */
export function projectFolder(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, '.git', 'config'), `[remote "origin"]\n\turl = git@github.com:acme/${name}.git\n`);
  return dir;
}

export interface Agent {
  client: Client;
  errors: Error[];
  close(): Promise<void>;
}

/** An SDK client on `mnemo mcp` over stdio, declaring one MCP root (or none). */
export async function stdioAgent(
  dataDir: string,
  opts: { name: string; version?: string; root?: string; cwd?: string },
): Promise<Agent> {
  const client = new Client(
    { name: opts.name, version: opts.version ?? '1.0.0' },
    { capabilities: opts.root ? { roots: { listChanged: true } } : {} },
  );
  if (opts.root)
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [{ uri: pathToFileURL(opts.root!).href, name: 'project' }],
    }));
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: mcpEnv(dataDir),
    cwd: opts.cwd ?? REPO,
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, errors, close: () => client.close() };
}

/** The first text content of a tool result. */
export function toolText(r: unknown): string {
  const c = (r as CallToolResult).content?.[0];
  return c && c.type === 'text' ? c.text : '';
}
