/**
 * What agents reach Mnemo through (agents/): serve (the sidecar on stdio), mcp, connect, import-rules,
 * promote-to-repo and the readable export. Rows of the command table (commands/index.ts).
 */
import { resolveConfig } from '../../config';
import {
  connectCommand,
  importRulesCommand,
  promoteCommand,
  readableExportCommand,
} from '../../agents/cliCommands';
import { runMcp } from '../../agents';
import { serveStdio } from '../../stdio';
import type { CliCommand } from '../args';
import { UsageError, out, refuseGlobalProject, withService } from '../shared';

export const serve: CliCommand = {
  names: ['serve'],
  usage: `  serve                                                         the sidecar on stdio (JSON-RPC)`,
  async run({ cfg }) {
    serveStdio(cfg);
    return new Promise<number>(() => undefined); // runs until the connection closes
  },
};

export const mcp: CliCommand = {
  names: ['mcp'],
  usage: `  mcp [--http [--port N]] [--project P]                         the MCP server for agents (stdio; HTTP on 127.0.0.1, the install's port, a bearer token)`,
  async run({ values, cfg }) {
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
      throw new UsageError('--port must be a port number (0 for any free port).');
    refuseGlobalProject(values.project ?? process.env.MNEMO_PROJECT, 'run the MCP server');
    await runMcp(cfg, { http: values.http, port, project: values.project ?? process.env.MNEMO_PROJECT });
    return 0;
  },
};

export const connect: CliCommand = {
  names: ['connect'],
  usage: `  connect AGENT [--scope S] [--pointer] [--yes] [--undo]        MCP config for claude-code, codex, cursor, cline, windsurf, copilot-cli (diff first);
                                                                --scope local|user (yours; the default) or project (committed: portable only)`,
  async run({ values, positionals }) {
    await connectCommand(
      {
        agent: positionals[0],
        projectDir: process.cwd(),
        dataDir: values['data-dir'] ?? process.env.MNEMO_DATA_DIR,
        scope: values.scope,
        yes: values.yes,
        undo: values.undo,
        pointer: values.pointer,
        file: values.file,
      },
      out,
    );
    return 0;
  },
};

export const importRules: CliCommand = {
  names: ['import-rules'],
  usage: `  import-rules [PATH] [--memories DIR] [--explain]            AGENTS.md, CLAUDE.md, copilot-instructions, .cursorrules, .cursor/rules -> memories waiting for review`,
  async run({ values, positionals, cfg, project }) {
    refuseGlobalProject(project, 'import rules');
    await importRulesCommand(
      {
        path: positionals[0],
        projectId: project,
        memoriesDir: values.memories,
        by: resolveConfig(cfg).user,
        json: values.json,
        explain: values.explain,
      },
      (fn) => withService(cfg, fn),
      out,
    );
    return 0;
  },
};

export const promoteToRepo: CliCommand = {
  names: ['promote-to-repo'],
  usage: `  promote-to-repo [--file AGENTS.md] [--ids A,B] [--yes]        confirmed memories into Mnemo's section of the instruction file (diff first)`,
  async run({ values, cfg, project }) {
    await promoteCommand(
      {
        projectDir: process.cwd(),
        projectId: project,
        file: values.file,
        ids: values.ids,
        yes: values.yes,
        by: resolveConfig(cfg).user,
      },
      (fn) => withService(cfg, fn),
      out,
    );
    return 0;
  },
};

export const readableExport: CliCommand = {
  names: ['export'],
  usage: `  export --format jsonl|markdown --out FILE|- [--project P]     readable export (redacted, NOT encrypted)`,
  when: (v) => v.format !== undefined,
  async run({ values, cfg }) {
    await readableExportCommand(
      {
        format: values.format,
        out: values.out,
        projectId: values.project,
        includeWrong: values['include-wrong'],
        by: resolveConfig(cfg).user,
      },
      (fn) => withService(cfg, fn),
      out,
    );
    return 0;
  },
};
