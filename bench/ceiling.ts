import { runLoad, type LoadRequest, type LoadSettings, type LoadStats } from './load.js';
import { nodeWithTsx, startChildServer } from './server-process.js';

/*
 * Runs the bare-Fastify ceiling (bench/ceiling-server.ts) once per distinct response shape: the same
 * method, request headers and body as the scenario, the same connections and duration, and a payload
 * of the scenario's typical response size. Run after the catalogue servers are stopped, so that the
 * ceiling does not compete with them for the two cores.
 */
export interface CeilingJob {
  method: LoadRequest['method'];
  bytes: number;
  headers: Record<string, string>;
  body?: string;
}

export const ceilingKey = (job: Pick<CeilingJob, 'method' | 'bytes'>) => `${job.method} ${job.bytes}`;

export async function runCeilings(
  jobs: CeilingJob[],
  settings: LoadSettings & { warmupS: number },
  cwd: string,
  log: (line: string) => void,
): Promise<Map<string, LoadStats>> {
  const unique = new Map<string, CeilingJob>();
  for (const job of jobs) if (!unique.has(ceilingKey(job))) unique.set(ceilingKey(job), job);
  const results = new Map<string, LoadStats>();
  if (unique.size === 0) return results;

  const server = await startChildServer({ args: nodeWithTsx(['bench/ceiling-server.ts']), env: { ...process.env, PORT: '0' }, cwd, label: 'ceiling' });
  try {
    for (const [key, job] of unique) {
      const request: LoadRequest = { method: job.method, path: `/payload/${job.bytes}`, headers: job.headers, body: job.body };
      if (settings.warmupS > 0) await runLoad(server.url, request, { connections: settings.connections, durationS: settings.warmupS });
      const stats = await runLoad(server.url, request, settings);
      results.set(key, stats);
      log(`ceiling ${key} B: ${Math.round(stats.rps)} req/s, p99 ${stats.latency?.p99 ?? '-'} ms`);
    }
  } finally {
    await server.stop();
  }
  return results;
}
