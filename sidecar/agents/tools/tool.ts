/**
 * One MCP tool as its own module: what clients see of it (name, title, description, input and output
 * schemas, annotations) and its handler, which works against the connection's context (mcpContext.ts).
 * server.ts registers the table of tools (index.ts) in its order; every call runs through `ctx.run`.
 */
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { McpContext } from '../mcpContext';

export interface McpToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: I;
  outputSchema?: O;
  annotations: ToolAnnotations;
  /** The tool's body: its text and structured result; what it throws becomes one sentence with isError. */
  handler(ctx: McpContext, args: z.objectOutputType<I, z.ZodTypeAny>): Promise<CallToolResult>;
}

/** A tool as the table holds it, whatever its arguments. */
export type McpTool = McpToolSpec<z.ZodRawShape, z.ZodRawShape>;

/** A tool's spec as written, its handler's arguments typed by its input schema. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  spec: McpToolSpec<I, O>,
): McpToolSpec<I, O> {
  return spec;
}

/** Registers a tool on one connection's server: a call runs its handler through `ctx.run`. */
export function registerTool(ctx: McpContext, tool: McpTool): void {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  ctx.server.registerTool(name, { title, description, inputSchema, outputSchema, annotations }, (args) =>
    ctx.run(name, () => tool.handler(ctx, args)),
  );
}
