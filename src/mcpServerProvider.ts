/**
 * Offers Mnemo's MCP server to the editor's own agents where VS Code has the API
 * (`vscode.lm.registerMcpServerDefinitionProvider`, 1.101+; declared in package.json
 * `contributes.mcpServerDefinitionProviders`). Feature-detected like the LM tools: on older versions
 * nothing is registered and the `mnemo_recall` / `mnemo_remember` LM tools remain the agents' way in.
 * The definition starts `dist/cli.js mcp` on the extension's data folder (src/mcpLaunch.ts); it is
 * offered again when a setting it carries changes.
 */
import * as vscode from 'vscode';
import { buildInitializationOptions } from './client';
import type { Ctx } from './ctx';
import { mcpLaunchFor } from './mcpLaunch';

export const MCP_PROVIDER_ID = 'mnemo.mcpServer';

/** The 1.101 API surface used here (our @types/vscode is older). */
interface McpApi {
  registerMcpServerDefinitionProvider(
    id: string,
    provider: {
      onDidChangeMcpServerDefinitions?: vscode.Event<void>;
      provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[];
    },
  ): vscode.Disposable;
}
type StdioDefinitionCtor = new (
  label: string,
  command: string,
  args?: string[],
  env?: Record<string, string>,
  version?: string,
) => unknown;

export class McpServerProvider implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** Whether this VS Code took the provider (false before 1.101). */
  readonly registered: boolean = false;

  constructor(ctx: Ctx) {
    const lm = (vscode as Partial<typeof vscode>).lm as Partial<McpApi> | undefined;
    const Definition = (vscode as unknown as { McpStdioServerDefinition?: StdioDefinitionCtor })
      .McpStdioServerDefinition;
    if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') {
      ctx.log.info(
        'This VS Code has no MCP server definition API (1.101+); agents reach Mnemo through its language model tools.',
      );
      return;
    }
    const changed = new vscode.EventEmitter<void>();
    let registration: vscode.Disposable;
    try {
      registration = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
        onDidChangeMcpServerDefinitions: changed.event,
        provideMcpServerDefinitions: () => {
          const launch = mcpLaunchFor({
            execPath: process.execPath,
            extensionPath: ctx.extension.extensionPath,
            options: buildInitializationOptions(ctx.extension.globalStorageUri.fsPath, {}),
          });
          return [
            new Definition(
              'Mnemo memory',
              launch.command,
              launch.args,
              launch.env,
              String((ctx.extension.extension.packageJSON as { version?: string }).version ?? ''),
            ),
          ];
        },
      });
    } catch (e) {
      // VS Code 1.100 has an earlier form of this API that wants another manifest entry and refuses ours:
      // it must never cost the extension its activation.
      changed.dispose();
      ctx.log.warn(
        `This VS Code refused Mnemo's MCP server definition (${e instanceof Error ? e.message : String(e)}); agents reach Mnemo through its language model tools.`,
      );
      return;
    }
    this.disposables.push(
      changed,
      registration,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mnemo.embedding') || e.affectsConfiguration('mnemo.chroma'))
          changed.fire();
      }),
    );
    (this as { registered: boolean }).registered = true;
    ctx.log.info("Mnemo's MCP server is offered to VS Code's agents.");
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
