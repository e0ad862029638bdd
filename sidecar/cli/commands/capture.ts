/**
 * Agents' transcripts (capture/cli.ts does the work): sources, capture, hooks. Rows of the command table
 * (commands/index.ts).
 */
import { resolveConfig } from '../../config';
import { captureCommands } from '../../capture/cli';
import type { CliCommand } from '../args';
import { out, withService } from '../shared';

function captureRow(name: 'sources' | 'capture' | 'hooks', usage: string): CliCommand {
  return {
    names: [name],
    usage,
    run: ({ values, positionals, cfg }) =>
      captureCommands(
        name,
        { values, positionals, cfg, config: resolveConfig(cfg) },
        (fn) => withService(cfg, fn),
        out,
      ),
  };
}

export const sources = captureRow(
  'sources',
  `  sources [--json]                                              agents' transcripts found for this folder, with session counts (reads none)`,
);
export const capture = captureRow(
  'capture',
  `  capture [--source S]… [--transcript PATH] [--yes]             learn from agents' transcripts of this folder; without --yes only says what it would read
  capture --hook AGENT                                          what an agent's session-end hook runs: queued durably, learned in the background`,
);
export const hooks = captureRow(
  'hooks',
  `  hooks AGENT [--undo] [--yes]                                  capture hooks for claude-code, gemini-cli, copilot-cli, codex (diff first)`,
);
