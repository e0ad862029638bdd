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
