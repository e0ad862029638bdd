import { loadDataset } from './lib/dataset';
for (const id of process.argv.slice(2)) { const c = loadDataset().find(x => x.id === id)!;
const counts = new Map<string, number>(); for (const m of c.sessions.flatMap(s => s.messages)) counts.set(m.content, (counts.get(m.content) ?? 0) + 1);
console.log(id, [...counts].filter(([,n]) => n > 2).map(([t,n]) => `${n}x ${t.slice(0,50)}`).join(' || ')); }
