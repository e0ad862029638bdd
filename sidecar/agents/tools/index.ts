/**
 * The MCP tools, in the order a client's `tools/list` shows them (server.ts registers them in this order).
 * One module each: its name, title, description, schemas, annotations and handler (tool.ts).
 */
import { getTool } from './get';
import { markWrongTool } from './markWrong';
import { recallTool } from './recall';
import { rememberTool } from './remember';
import { reportTool } from './report';
import { searchTool } from './search';
import type { McpTool } from './tool';

export const MCP_TOOLS: readonly McpTool[] = [
  recallTool,
  rememberTool,
  markWrongTool,
  reportTool,
  searchTool,
  getTool,
];
