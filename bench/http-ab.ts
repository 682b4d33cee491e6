import { parseArgs } from 'node:util';
import { median } from './median.js';
import { runLoad, type LoadStats } from './load.js';

/*
 * A/B comparison of requests on running services, in alternating rounds: on a machine loaded by
 * other work, figures taken minutes apart differ by more than the few per cent a target asks for, so
 * the arms are interleaved (A B C ... then ... C B A) and compared as ratios within each round.
 *
 *   npx tsx bench/http-ab.ts --arm 'main=http://127.0.0.1:3001@KEY_A/projects?bedrooms=2' \
 *                       --arm 'branch=http://127.0.0.1:3002@KEY_B/projects?bedrooms=2' \
 *                       --compare branch/main --rounds 6 --duration 5
 *
 * An arm is `name=BASE_URL@API_KEY/PATH`. Each `--compare X/Y` prints the median over the rounds of
 * X's req/s divided by Y's taken in the same round, with the lowest and highest. The services are
 * started by the caller (e.g. two builds on two ports, each on its own copy of the catalogue).
 */

interface Arm {
  name: string;
  baseUrl: string;
  key: string;
  path: string;
}

function parseArm(text: string): Arm {
  const match = /^([\w.-]+)=(https?:\/\/[^@/]+)@([^/]+)(\/.*)$/.exec(text);
  if (!match) throw new Error(`--arm must be name=BASE_URL@KEY/PATH, got ${text}`);
  return { name: match[1], baseUrl: match[2], key: match[3], path: match[4] };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      arm: { type: 'string', multiple: true },
      compare: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '6' },
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '32' },
    },
    strict: true,
  });
  const arms = (values.arm ?? []).map(parseArm);
  if (arms.length < 2) throw new Error('give at least two --arm');
  const rounds = Number(values.rounds);
  const settings = { connections: Number(values.connections), durationS: Number(values.duration) };
  const warmup = { connections: settings.connections, durationS: Number(values.warmup) };
  const byArm = new Map<string, number[]>(arms.map((arm) => [arm.name, []]));

  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? arms : [...arms].reverse();
    const line: string[] = [];
    for (const arm of order) {
      const request = { method: 'GET' as const, path: arm.path, headers: { 'x-api-key': arm.key } };
      if (warmup.durationS > 0) await runLoad(arm.baseUrl, request, warmup);
      const stats: LoadStats = await runLoad(arm.baseUrl, request, settings);
      if (stats.non2xx + stats.errors > 0) throw new Error(`${arm.name}: ${stats.non2xx} non-2xx, ${stats.errors} errors (${JSON.stringify(stats.statusCodes)})`);
      byArm.get(arm.name)!.push(stats.rps);
      line.push(`${arm.name} ${Math.round(stats.rps)}`);
    }
    console.log(`round ${round + 1}: ${line.join(', ')} req/s`);
  }

  console.log('\narm: median req/s (min-max) over the rounds');
  for (const arm of arms) {
    const rps = byArm.get(arm.name)!;
    console.log(`  ${arm.name}: ${Math.round(median(rps))} (${Math.round(Math.min(...rps))}-${Math.round(Math.max(...rps))})  ${arm.path}`);
  }
  for (const pair of values.compare ?? []) {
    const [x, y] = pair.split('/');
    const [a, b] = [byArm.get(x), byArm.get(y)];
    if (!a || !b) throw new Error(`--compare ${pair}: unknown arm`);
    const ratios = a.map((value, k) => value / b[k]);
    const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
    console.log(`${x} / ${y}: median ${percent(median(ratios))} (rounds ${ratios.map(percent).join(', ')})`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
