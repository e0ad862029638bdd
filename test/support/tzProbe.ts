/**
 * Run under a TZ: stores memories at fixed UTC instants (Berlin afternoon = Shanghai night), prints the
 * stored times and the "new in the last 7 days" count as JSON on the last line.
 */
import { inProcessService } from './sidecarSession';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  let now = new Date('2026-11-20T14:00:00.000Z'); // 15:00 in Berlin, 22:00 in Shanghai, 06:00 in Los Angeles
  const svc = inProcessService(dataDir, {}, { clock: () => now });
  await svc.start();
  const created: string[] = [];
  for (const [at, text] of [
    ['2026-11-20T14:00:00.000Z', 'Berlin reported the PLC-3000 fault at 15:00 local time'],
    ['2026-11-23T23:30:00.000Z', 'Shanghai replaced the RTU-88 power supply on the morning shift'],
    ['2026-11-29T16:00:00.000Z', 'San Jose flashed GW-450 firmware 2.4.1 before the weekend'],
  ] as const) {
    now = new Date(at);
    const d = await svc.remember({ text, project_id: 'tz' });
    created.push((await svc.get(d.id!)).created_at);
  }
  now = new Date('2026-11-30T15:00:00.000Z');
  const stats = await svc.stats('tz');
  await svc.dispose();
  process.stdout.write(
    JSON.stringify({
      created,
      new_7d: stats.projects[0]?.new_7d ?? -1,
      offset: new Date().getTimezoneOffset(),
    }) + '\n',
  );
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(String((e as Error)?.stack ?? e) + '\n');
    process.exit(1);
  },
);
