import { parseArgs } from 'node:util';
import { median } from './median.js';
import { runLoad, type LoadStats } from './load.js';
import { neverSeenBefore } from './scenarios.js';
import { cpuSeconds, inRoundOrder } from './process-cpu.js';

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
 * started by the caller (e.g. two builds on two ports, each on its own copy of the catalogue); with
 * `--pid BASE_URL=PID` for each, also the server's CPU time per response of each arm (far steadier
 * than req/s on a machine other work loads) and the capacity ratio of each compared pair. With
 * `--raise PARAM` (e.g. `price_max`), each request raises that parameter of the path by one more, as the
 * bench's never-cached scenarios do: every request is a search the service has not seen.
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
      pid: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '6' },
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '32' },
      raise: { type: 'string' },
    },
    strict: true,
  });
  const arms = (values.arm ?? []).map(parseArm);
  if (arms.length < 2) throw new Error('give at least two --arm');
  const rounds = Number(values.rounds);
  const settings = { connections: Number(values.connections), durationS: Number(values.duration) };
  const warmup = { connections: settings.connections, durationS: Number(values.warmup) };
  const byArm = new Map<string, number[]>(arms.map((arm) => [arm.name, []]));
  const pids = new Map(
    (values.pid ?? []).map((text) => {
      const at = text.lastIndexOf('=');
      return [text.slice(0, at), Number(text.slice(at + 1))] as const;
    }),
  );
  /** Per arm: the server's CPU seconds and the responses over the measured runs (arms with a --pid). */
  const cpu = new Map<string, { seconds: number; responses: number }>();

  // One path generator per arm for the whole run: with --raise, no request repeats an earlier one.
  const paths = new Map(arms.map((arm) => [arm.name, values.raise ? raising(arm.path, values.raise) : arm.path]));
  for (let round = 0; round < rounds; round++) {
    const line: string[] = [];
    for (const arm of inRoundOrder(arms, round)) {
      const request = { method: 'GET' as const, path: paths.get(arm.name)!, headers: { 'x-api-key': arm.key } };
      if (warmup.durationS > 0) await runLoad(arm.baseUrl, request, warmup);
      const pid = pids.get(arm.baseUrl);
      const before = pid === undefined ? 0 : cpuSeconds(pid);
      const stats: LoadStats = await runLoad(arm.baseUrl, request, settings);
      if (pid !== undefined) {
        const spent = cpu.get(arm.name) ?? { seconds: 0, responses: 0 };
        cpu.set(arm.name, { seconds: spent.seconds + cpuSeconds(pid) - before, responses: spent.responses + stats.responses });
      }
      if (stats.non2xx + stats.errors > 0) throw new Error(`${arm.name}: ${stats.non2xx} non-2xx, ${stats.errors} errors (${JSON.stringify(stats.statusCodes)})`);
      byArm.get(arm.name)!.push(stats.rps);
      line.push(`${arm.name} ${Math.round(stats.rps)}`);
    }
    console.log(`round ${round + 1}: ${line.join(', ')} req/s`);
  }

  console.log('\narm: median req/s (min-max) over the rounds');
  for (const arm of arms) {
    const rps = byArm.get(arm.name)!;
    const spent = cpu.get(arm.name);
    const perResponse = spent ? `, server CPU ${((spent.seconds / spent.responses) * 1e6).toFixed(0)} µs per response` : '';
    console.log(`  ${arm.name}: ${Math.round(median(rps))} (${Math.round(Math.min(...rps))}-${Math.round(Math.max(...rps))})${perResponse}  ${arm.path}`);
  }
  const cpuPerResponse = (name: string) => {
    const spent = cpu.get(name);
    return spent && spent.seconds / spent.responses;
  };
  for (const pair of values.compare ?? []) {
    const [x, y] = pair.split('/');
    const [a, b] = [byArm.get(x), byArm.get(y)];
    if (!a || !b) throw new Error(`--compare ${pair}: unknown arm`);
    const ratios = a.map((value, k) => value / b[k]);
    const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
    const [cx, cy] = [cpuPerResponse(x), cpuPerResponse(y)];
    const capacity = cx && cy ? `; capacity (CPU per response) ${percent(cy / cx)}` : '';
    console.log(`${x} / ${y}: median ${percent(median(ratios))} (rounds ${ratios.map(percent).join(', ')})${capacity}`);
  }
}

/** The arm's path with `parameter` one more at every call (bench/scenarios.ts, as the never-cached scenarios). */
function raising(path: string, parameter: string): () => string {
  const [route, query = ''] = path.split('?');
  if (!new URLSearchParams(query).has(parameter)) throw new Error(`--raise ${parameter}: the path ${path} has no ${parameter}`);
  return neverSeenBefore(query, route, parameter);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
