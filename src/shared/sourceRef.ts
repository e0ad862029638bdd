/** Source references of memories (`file:line`, `msg:<id>`, URLs), parsed without `vscode` (unit-tested). */

/** `src/a.ts:12`, `file:src/a.ts:12:3`, `/abs/a.ts:12` -> path and 0-based line; undefined for msg:/URLs. */
export function parseFileRef(ref: string): { file: string; line: number } | undefined {
  if (/^(msg|cmd|terminal|cwd|https?|vscode-chat-export|chat-export):/i.test(ref)) return undefined;
  const m = /^(?:file:(?:\/\/)?)?(.+?):(\d+)(?::\d+)?$/.exec(ref.trim());
  if (!m) return undefined;
  return { file: m[1], line: Math.max(0, Number(m[2]) - 1) };
}
