import { loadDataset } from './lib/dataset';
const cs = loadDataset();
for (const c of cs) {
  const turns = c.sessions.flatMap(s => s.messages);
  const counts = new Map<string, number>(); for (const m of turns) counts.set(m.content, (counts.get(m.content) ?? 0) + 1);
  const rep = [...counts.values()].filter(n => n > 1).length;
  const maxrep = Math.max(...counts.values());
  const nm = c.questions.reduce((n, q) => n + (q.near_miss?.length ?? 0), 0);
  console.log(c.id, 'sessions', c.sessions.length, 'turns', turns.length, 'q', c.questions.length, 'dupLines', rep, 'maxrep', maxrep, 'near', nm, String(c.sessions[0]!.messages[0]!.timestamp).slice(0,10), String(c.sessions.at(-1)!.messages[0]!.timestamp).slice(0,10));
}
const c = cs.find(x => x.id === process.argv[2]) ?? cs[0]!;
const s = c.sessions[Number(process.argv[3] ?? 5)]!;
for (const m of s.messages) console.log(`${m.id} ${m.name}: ${m.content}  [${c.labels[m.id!]}]`);
for (const q of c.questions.slice(-6)) console.log(JSON.stringify(q));
