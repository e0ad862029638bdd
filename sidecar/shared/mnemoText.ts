/**
 * Text Mnemo itself puts in front of agents, once, so what writes it and what recognizes it in a captured
 * transcript (sidecar/capture/injected.ts: never learned again) cannot drift apart.
 */

/** The instructions Mnemo's MCP server gives every client at `initialize` (sidecar/agents/server.ts). */
export const MCP_INSTRUCTIONS =
  'Mnemo is the long-term memory this team shares across agents. Call `recall` with the task at the start of every task, and `remember` for each decision, setting or convention worth keeping (it waits for a person to review it). Call `report` with `used` for a recalled memory you relied on and `wrong` for one that turned out wrong.';

/** What the MCP `recall` tool answers when nothing was recalled (followed by the projects and a period). */
export const MCP_NOTHING_RECALLED = 'No memories recalled for this query in ';
