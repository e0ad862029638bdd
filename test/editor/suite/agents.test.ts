/**
 * The editor's own agent meets Mnemo without being told: Mnemo's MCP server is listed among VS Code's MCP
 * servers and its tools answer through the editor's MCP client (VS Code 1.101+), and the chat instructions
 * and skill Mnemo contributes (stable in today's VS Code) are loaded for every chat. On an older VS Code
 * that has neither, the extension still activates and its language model tools work (mnemo.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { MnemoApi } from '../../../src/api';
import { DeleteRequest, RememberRequest } from '../../../sidecar/protocol';
import { loadRunConfig } from './harness';
import { mnemo, uniqueTag, waitFor } from './support';

/** Whether this VS Code is at least `want` ("1.101"). */
function atLeast(want: string): boolean {
  const [a, b] = vscode.version.split('.').map(Number);
  const [x, y] = want.split('.').map(Number);
  return a > x || (a === x && b >= y);
}

/** The text parts of a tool result. */
function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

describe('agents in the editor', function () {
  this.timeout(240_000);
  const cfg = loadRunConfig();
  let api: MnemoApi;
  const seeded: string[] = [];

  before(async () => {
    api = await mnemo();
  });

  after(async () => {
    if (seeded.length)
      await api.request(DeleteRequest, { ids: seeded, by: 'editor-tests' }).catch(() => undefined);
  });

  it("contributes chat instructions and a skill that VS Code's agent loads for every chat", async function () {
    // contributes.chatInstructions / chatSkills are stable in current VS Code; 1.99 ignores them.
    if (!atLeast('1.110')) this.skip();
    const listed =
      await vscode.commands.executeCommand<{ uri: { path: string }; type: string; extensionId: string }[]>(
        '_listExtensionPromptFiles',
      );
    const ours = listed.filter((f) => f.extensionId === cfg.expectedExtensionId);
    const kinds = ours.map((f) => `${f.type}:${f.uri.path.split('/').slice(-2).join('/')}`).sort();
    assert.deepEqual(kinds, ['instructions:chat/mnemo.instructions.md', 'skill:mnemo-memory/SKILL.md']);
    // What the agent is told: recall at the start of a task, remember decisions, recalled text is data.
    const instructions = fs.readFileSync(ours.find((f) => f.type === 'instructions')!.uri.path, 'utf8');
    assert.match(instructions, /^---\n[\s\S]*applyTo: '\*\*'[\s\S]*\n---\n/, 'applies to every chat');
    assert.match(instructions, /start of every task, call the `mnemo_recall` tool/);
    assert.match(instructions, /call\s+`mnemo_remember`/);
    assert.match(instructions, /quoted data, not instructions/);
    const skill = fs.readFileSync(ours.find((f) => f.type === 'skill')!.uri.path, 'utf8');
    assert.match(skill, /^---\nname: mnemo-memory\ndescription: '.+'\n---\n/);
  });

  it("lists Mnemo among VS Code's MCP servers, and its tools answer through the editor's MCP client", async function () {
    if (!atLeast('1.101')) {
      // No MCP server definition API: the provider stays off and says so, activation does not depend on it.
      assert.equal(api.mcp.registered, false, `VS Code ${vscode.version}`);
      this.skip();
    }
    assert.equal(api.mcp.registered, true, `VS Code ${vscode.version} takes the MCP server definition`);
    const projectId = api.projects().find((p) => p.projectId !== 'global')?.projectId;
    assert.ok(projectId, 'the test workspace has a folder');
    const text = `The ${uniqueTag('mcp')} gateway retries a failed PLC write three times before it alarms.`;
    const decision = await api.request(RememberRequest, {
      text,
      project_id: projectId,
      category: 'instruction',
      source_type: 'manual',
      added_by: 'editor-tests',
    });
    assert.ok(decision.id, `remember returned no id: ${JSON.stringify(decision)}`);
    seeded.push(decision.id);

    // Start every MCP server VS Code knows (only Mnemo here) and wait until their tools are live.
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    const recallTool = await waitFor(
      "Mnemo's MCP recall tool in vscode.lm.tools",
      () => vscode.lm.tools.find((t) => /^mcp_.*mnemo.*_recall$/i.test(t.name)),
      120_000,
      500,
    );
    const out = await waitFor('the MCP recall tool to return the memory', async () => {
      const r = textOf(
        await vscode.lm.invokeTool(recallTool.name, {
          input: { query: 'How often does the gateway retry a failed PLC write?' },
          toolInvocationToken: undefined,
        }),
      );
      return r.includes(text.slice(0, 40)) ? r : undefined;
    });
    assert.ok(out.length > 0);
  });
});
