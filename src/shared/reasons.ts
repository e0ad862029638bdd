/**
 * Why a memory was kept, in words. The pipeline records the rules that kept a candidate as compact
 * syntax (`rule:explicit-request(请记录) +tech-number(数据库 50)`, `llm:persona`, `…; pending: …`) for
 * `mnemo ingest --explain`; people read `You asked to remember this (“请记录”) · contains a setting:
 * 数据库 50`. No `vscode` import; unit-tested in test/unit/reasons.test.ts.
 */

const RULES: Record<string, (cue: string) => string> = {
  'explicit-request': (c) => (c ? `you asked to remember this (“${c}”)` : 'you asked to remember this'),
  preference: (c) => `states a preference (“${c}”)`,
  style: (c) => `describes how you like to work (“${c}”)`,
  identity: (c) => `says who you are (“${c}”)`,
  decision: (c) => `records a decision (“${c}”)`,
  correction: (c) => `corrects an earlier statement (“${c}”)`,
  'confirmed-fact': (c) => `states a confirmed fact (“${c}”)`,
  event: (c) => `records an event (“${c}”)`,
  'cognitive-verb': (c) => `says what is known or believed (“${c}”)`,
  'operational-verb': (c) => `describes how something is done (“${c}”)`,
  'tech-number': (c) => `contains a setting: ${c}`,
  'source-ref': (c) => `cites a source (${c})`,
  'terminal-fix': (c) => {
    const m = /^(\S+) exit (\S+) -> exit 0$/.exec(c);
    return m
      ? `a failing \`${m[1]}\` command (exit ${m[2]}) was then fixed`
      : `a failing command was then fixed (${c})`;
  },
  'llm-agrees': () => 'the language model agrees',
};

function capitalize(s: string): string {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** One token: `rule:name(cue)`, `+name(cue)`, `llm:category`. */
function phrase(kind: string, name: string, cue: string): string {
  if (kind === 'llm:') return `the language model proposed it as ${name}`;
  const known = RULES[name];
  if (known) return known(cue);
  const words = name.replace(/-/g, ' ');
  return cue ? `${words} (${cue})` : words;
}

/** The reason a memory was kept, as one readable line. */
export function explainReason(reason: string | undefined): string {
  if (!reason?.trim()) return 'No reason was recorded';
  const [kept, ...pendingParts] = reason.split(/;\s*pending:\s*/);
  let main: string;
  if (/^explicit:/.test(kept.trim())) main = 'You asked to remember this';
  else if (kept.trim() === 'bulk import') main = 'Imported from a list of memories';
  else {
    const parts: string[] = [];
    // A cue may hold spaces (`数据库 50`) but no parentheses; a token starts at the line start or after a space.
    for (const m of kept.matchAll(/(?:^|\s)(rule:|\+|llm:)([\w-]+)(?:\(([^)]*)\))?/g))
      parts.push(phrase(m[1], m[2], (m[3] ?? '').trim()));
    main = parts.length ? parts.map((p, i) => (i === 0 ? capitalize(p) : p)).join(' · ') : kept.trim();
  }
  const pending = pendingParts.join('; ').trim();
  return pending ? `${main} — waits for review: ${pending}` : main;
}

const DROPS: Record<string, (cue: string) => string> = {
  'command-ok-no-lesson': () => 'the command worked and taught nothing new (no failure before it to fix)',
  'command-failed-unfixed': () =>
    'the command failed and no later command of the session fixed it (a fix is what is worth keeping)',
  'command-no-result': () => 'the command did not finish in the session (no exit code)',
  'agent-rerun': () => 'an agent ran the same command again; a rerun is not a fix',
  'agent-task': (c) => `a request for one change${c ? ` (${c})` : ''}, not a lasting fact`,
  'agent-claim': (c) => `an agent’s claim with too little to back it${c ? ` (${c})` : ''}`,
  'agent-unreviewed': (c) => `an agent’s claim that would only wait for review${c ? ` (${c})` : ''}`,
  'code-block': () => 'code, not a statement to remember',
  'duplicate-in-session': () => 'said earlier in the same session',
  'empty-request': (c) => `asks to remember${c ? ` (“${c}”)` : ''} but says nothing to keep`,
  hedge: (c) => `a guess, not a fact${c ? ` (“${c}”)` : ''}`,
  question: () => 'a question, not a statement',
  'small-talk': () => 'small talk',
  'system-message': () => 'an instruction to a model, not something said',
  'too-short': () => 'too short to stand on its own',
  venting: () => 'venting, not a fact',
};

/** Why a line was not kept (`drop:command-ok-no-lesson`, `drop:hedge(可能)`), as one readable phrase. */
export function explainDrop(reason: string | undefined): string {
  const m = /^drop:([\w-]+)(?:\((.*)\))?$/s.exec(reason?.trim() ?? '');
  if (!m) return reason?.trim() || 'no reason was recorded';
  const known = DROPS[m[1]];
  const cue = (m[2] ?? '').trim();
  return known ? known(cue) : `${m[1].replace(/-/g, ' ')}${cue ? ` (${cue})` : ''}`;
}
