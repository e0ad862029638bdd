/**
 * `npm run soak`: the reliability runs at the audit's scale (not part of `npm test`), printing the
 * figures: kills, acknowledged captures lost and doubled, hangs, orphaned Chroma servers, RSS peak.
 * `--quick` runs every part at a small scale; `--scale N` multiplies the quick scale (default: the audit's);
 * `--only WORD` runs the parts whose name holds WORD (`--only mcp`).
 *
 *   sidecar kill -9s (a third of them right after the capture was acknowledged, mid-drain),
 *   CLI kill -9s during a 500-message ingest, Chroma kill -9s under a running sidecar,
 *   `mnemo mcp` kill -9s right after a `remember` was answered (or mid-request), short CLI runs bounded
 *   for hangs, concurrent recalls counting their uses.
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import * as P from '../../sidecar/protocol';
import {
  CLI_JS,
  SidecarSession,
  TEST_MODEL,
  cleanupDataDir,
  tempDataDir,
  testConfig,
  testModelPath,
} from '../support/sidecarSession';
import { FACTS } from '../fixtures/facts';
import { chromaServers, cli, killChromaServers } from './support';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const scaleAt = args.indexOf('--scale');
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
const AUDIT = {
  sidecarKills: 100,
  midCapture: 35,
  cliKills: 70,
  chromaKills: 20,
  mcpKills: 12,
  shortRuns: 100,
  recalls: 20,
};
const QUICK = {
  sidecarKills: 6,
  midCapture: 2,
  cliKills: 3,
  chromaKills: 2,
  mcpKills: 2,
  shortRuns: 6,
  recalls: 20,
};
const scale = scaleAt >= 0 ? Number(args[scaleAt + 1]) : undefined;
const N =
  scale !== undefined
    ? Object.fromEntries(
        Object.entries(QUICK).map(([k, v]) => [k, k === 'recalls' ? v : Math.round(v * scale)]),
      )
    : quick
      ? QUICK
      : AUDIT;

let rssPeakMb = 0;
/** The peak resident set of a process so far (VmHWM), in MB. */
function sampleRss(pid: number | undefined): void {
  if (!pid) return;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) rssPeakMb = Math.max(rssPeakMb, Number(m[1]) / 1024);
  } catch {
    // exited
  }
}

const figures: Record<string, string | number> = {};
const started = Date.now();
const dirs: string[] = [];
const fresh = (name: string) => {
  const d = tempDataDir(`mnemo-soak-${name}-`);
  dirs.push(d);
  return d;
};

async function sidecarKills(): Promise<void> {
  const dataDir = fresh('kill');
  const acknowledged: string[] = [];
  for (let round = 0; round < N.sidecarKills; round++) {
    const s = await SidecarSession.start(testConfig(dataDir));
    const marker = `S${round}`;
    const fact = FACTS[round % FACTS.length]!;
    const r = await s.request(P.CaptureSessionRequest, {
      project_id: 'soak',
      source_type: 'chat',
      messages: [
        { id: `${marker}a`, role: 'user', content: `We decided: ${fact} for service ${marker}.` },
        {
          id: `${marker}b`,
          role: 'user',
          content: `Confirmed again for service ${marker}, nothing else changes.`,
        },
      ],
    });
    if (r.queue_id) acknowledged.push(marker);
    // The first ones die mid-drain (right after the acknowledgement); the others once the queue is empty.
    if (round >= N.midCapture) await s.request(P.FlushQueueRequest, { timeout_ms: 120_000 });
    sampleRss(s.proc.pid);
    sampleRss(chromaPid(dataDir));
    await s.kill9();
  }
  const s = await SidecarSession.start(testConfig(dataDir));
  try {
    await s.request(P.FlushQueueRequest, { timeout_ms: 600_000 });
    const list = await s.request(P.ListRequest, {
      project_id: 'soak',
      include_global: false,
      limit: 100_000,
    });
    let lost = 0;
    let doubled = 0;
    for (const marker of acknowledged) {
      const n = list.items.filter(
        (m) => m.text.includes(`service ${marker}.`) && m.text.startsWith('We decided'),
      ).length;
      if (n === 0) lost++;
      if (n > 1) doubled++;
    }
    const audit = await s.request(P.AuditListRequest, { project_id: 'soak' });
    const noCreate = list.items.filter(
      (m) =>
        !audit.entries.some((e) => e.memory_id === m.id && (e.action === 'create' || e.action === 'import')),
    ).length;
    sampleRss(s.proc.pid);
    figures['sidecar kill -9s'] = `${N.sidecarKills} (${N.midCapture} mid-capture)`;
    figures['acknowledged captures'] = acknowledged.length;
    figures['acknowledged captures lost'] = lost;
    figures['acknowledged captures doubled'] = doubled;
    figures['memories without a create entry'] = noCreate;
  } finally {
    await s.stop();
  }
  figures['orphaned Chroma servers after the sidecar kills'] = chromaServers(dataDir).length;
}

function chromaPid(dataDir: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(dataDir, 'chroma', 'mnemo-server.json'), 'utf8')) as { pid: number })
      .pid;
  } catch {
    return undefined;
  }
}

async function cliKills(): Promise<void> {
  const dataDir = fresh('cli');
  const messages = Array.from({ length: 500 }, (_, i) =>
    i % 10 === 3
      ? { role: 'user', content: `We decided: ${FACTS[Math.floor(i / 10) % FACTS.length]} (note ${i}).` }
      : { role: i % 2 ? 'assistant' : 'user', content: `ok, checking item ${i} of the list now` },
  );
  const file = join(dataDir, '..', `${dataDir.split('/').pop()}-500.json`);
  writeFileSync(file, JSON.stringify(messages));
  for (let k = 0; k < N.cliKills; k++) {
    const p = spawn(process.execPath, [CLI_JS, 'ingest', file, '--project', 'soak-cli'], {
      env: {
        ...process.env,
        MNEMO_DATA_DIR: dataDir,
        MNEMO_EMBEDDING_MODEL: TEST_MODEL,
        MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
      },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((r) => p.once('exit', () => r()));
    await new Promise((r) => setTimeout(r, 1500 + ((k * 1777) % 9000)));
    sampleRss(p.pid);
    p.kill('SIGKILL');
    await exited;
  }
  const last = await cli(dataDir, ['ingest', file, '--project', 'soak-cli'], { boundMs: 10 * 60_000 });
  figures['CLI kill -9s during a 500-message ingest'] = N.cliKills;
  figures['the ingest after them'] = last.code === 0 ? 'succeeded' : `failed: ${last.stderr.trim()}`;
  figures['orphaned Chroma servers after the CLI kills'] = chromaServers(dataDir).length;
}

async function chromaKills(): Promise<void> {
  const dataDir = fresh('chroma');
  const s = await SidecarSession.start(testConfig(dataDir));
  let failed = 0;
  try {
    for (let k = 0; k < N.chromaKills; k++) {
      const pid = chromaPid(dataDir);
      if (pid) process.kill(pid, 'SIGKILL');
      try {
        const d = await s.request(P.RememberRequest, {
          text: `${FACTS[k % FACTS.length]} (recorded after Chroma restart ${k}).`,
          project_id: 'soak-chroma',
        });
        if (!d.id) failed++;
      } catch {
        failed++;
      }
      sampleRss(chromaPid(dataDir));
    }
    sampleRss(s.proc.pid);
  } finally {
    await s.stop();
  }
  figures['Chroma kill -9s'] = N.chromaKills;
  figures['remembers that failed after a Chroma kill'] = failed;
  figures['orphaned Chroma servers after the Chroma kills'] = chromaServers(dataDir).length;
}

/** One `mnemo mcp` on stdio: sends JSON-RPC lines, resolves each answer by id. */
function mcpProcess(dataDir: string) {
  const p = spawn(process.execPath, [CLI_JS, 'mcp', '--project', 'soak-mcp'], {
    env: {
      ...process.env,
      MNEMO_DATA_DIR: dataDir,
      MNEMO_EMBEDDING_MODEL: TEST_MODEL,
      MNEMO_EMBEDDING_MODEL_PATH: testModelPath(),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map<number, (m: { result?: { structuredContent?: { outcome?: string } } }) => void>();
  let buf = '';
  p.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const m = JSON.parse(buf.slice(0, nl)) as {
        id?: number;
        result?: { structuredContent?: { outcome?: string } };
      };
      buf = buf.slice(nl + 1);
      if (typeof m.id === 'number') waiting.get(m.id)?.(m);
    }
  });
  p.stdin!.on('error', () => undefined); // killed while writing
  let next = 1;
  const request = (method: string, params: unknown) => {
    const id = next++;
    const answered = new Promise<{ result?: { structuredContent?: { outcome?: string } } }>((r) =>
      waiting.set(id, r),
    );
    p.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    return answered;
  };
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  return { p, request, exited };
}

async function mcpKills(): Promise<void> {
  const dataDir = fresh('mcp');
  const acknowledged: string[] = [];
  for (let round = 0; round < N.mcpKills; round++) {
    const m = mcpProcess(dataDir);
    await m.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'soak', version: '1' },
    });
    m.p.stdin!.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    const marker = `A${round}`;
    const answer = m.request('tools/call', {
      name: 'remember',
      arguments: { text: `We decided: ${FACTS[round % FACTS.length]} for agent run ${marker}.` },
    });
    // Even rounds die right after the answer; odd ones mid-request (acknowledged only if answered first).
    const outcome = await (round % 2
      ? Promise.race([
          answer,
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 300 + ((round * 577) % 1500))),
        ])
      : answer);
    const o = outcome?.result?.structuredContent?.outcome;
    if (o === 'stored' || o === 'pending') acknowledged.push(marker);
    sampleRss(m.p.pid);
    m.p.kill('SIGKILL');
    await m.exited;
  }
  const listed = await cli(dataDir, ['list', '--project', 'soak-mcp', '--status', 'pending', '--json'], {
    boundMs: 120_000,
  });
  const items = (JSON.parse(listed.stdout) as { items: Array<{ text: string }> }).items;
  let lost = 0;
  let doubled = 0;
  for (const marker of acknowledged) {
    const n = items.filter((x) => x.text.includes(`agent run ${marker}.`)).length;
    if (n === 0) lost++;
    if (n > 1) doubled++;
  }
  figures['mnemo mcp kill -9s'] = `${N.mcpKills} (${Math.floor(N.mcpKills / 2)} mid-request)`;
  figures['acknowledged remembers'] = acknowledged.length;
  figures['acknowledged remembers lost'] = lost;
  figures['acknowledged remembers doubled'] = doubled;
  figures['orphaned Chroma servers after the mcp kills'] = chromaServers(dataDir).length;
}

async function shortRuns(): Promise<void> {
  const dataDir = fresh('hang');
  const first = await cli(dataDir, ['list', '--project', 'soak-hang']);
  if (first.code !== 0) throw new Error(first.stderr);
  const commands = [['list'], ['stats'], ['recall', 'staging database port'], ['audit'], ['review']];
  let hangs = 0;
  let failures = 0;
  for (let i = 0; i < N.shortRuns; i++) {
    const r = await cli(dataDir, [...commands[i % commands.length]!, '--project', 'soak-hang'], {
      boundMs: 45_000,
    });
    if (r.hung) hangs++;
    else if (r.code !== 0) failures++;
  }
  figures['short CLI runs'] = N.shortRuns;
  figures['hangs (no exit within 45 s)'] = hangs;
  figures['short runs that failed'] = failures;
  figures['orphaned Chroma servers after the short runs'] = chromaServers(dataDir).length;
}

async function recalls(): Promise<void> {
  const dataDir = fresh('recall');
  const s = await SidecarSession.start(testConfig(dataDir));
  try {
    const d = await s.request(P.RememberRequest, {
      text: 'The staging database listens on port 6432 behind pgbouncer.',
      project_id: 'soak-recall',
    });
    await Promise.all(
      Array.from({ length: N.recalls }, () =>
        s.request(P.RecallRequest, {
          query: 'which port does the staging database listen on',
          project_ids: ['soak-recall'],
          top_k: 3,
          min_confidence: 0,
          min_similarity: 0,
        }),
      ),
    );
    await s.request(P.ListRequest, { project_id: 'soak-recall', limit: 1 }); // waits for the writes behind
    const m = await s.request(P.GetRequest, { id: d.id! });
    figures['concurrent recalls'] = N.recalls;
    figures['use_count increments lost'] = N.recalls - m.use_count;
    sampleRss(s.proc.pid);
  } finally {
    await s.stop();
  }
}

async function main(): Promise<void> {
  console.log(
    `mnemo soak (${quick ? 'quick' : scale !== undefined ? `scale ${scale}` : 'audit scale'}): ${JSON.stringify(N)}`,
  );
  for (const [name, run] of [
    ['sidecar kills', sidecarKills],
    ['CLI kills', cliKills],
    ['Chroma kills', chromaKills],
    ['mnemo mcp kills', mcpKills],
    ['short CLI runs', shortRuns],
    ['concurrent recalls', recalls],
  ] as const) {
    if (only && !name.includes(only)) continue;
    const t = Date.now();
    await run();
    console.log(`  ${name} done in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  }
  figures['full-disk run'] =
    'in npm test (test/reliability/diskFull.test.ts: a real 160 MB tmpfs where the machine allows)';
  figures['RSS peak (sidecar, CLI, Chroma), MB'] = Math.round(rssPeakMb);
  figures['wall time, s'] = Math.round((Date.now() - started) / 1000);
  console.log('\nFigures:');
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k}: ${v}`);
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const d of dirs) {
      killChromaServers(d);
      cleanupDataDir(d);
    }
  });
