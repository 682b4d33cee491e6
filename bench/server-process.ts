import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/*
 * Servers under test run as child processes, so that their RSS is theirs alone and the load generator
 * (autocannon, in this process) does not share their event loop. Each prints its URL on stdout once it
 * listens; everything else it prints is passed through with a prefix.
 */
export interface ChildServer {
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after a grace period; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface SpawnOptions {
  /** Arguments of `node`: see serviceArgs and nodeWithTsx. */
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Prefix of the passed-through output lines. */
  label: string;
  startTimeoutMs?: number;
  /** After SIGTERM, how long stop() waits before SIGKILL (default 15 s). */
  stopGraceMs?: number;
  /** Called with every output line, the banner included, e.g. to count the server's errors or log bytes. */
  onLine?: (line: string) => void;
  /** Whether a line is passed through (default: every line); a run at LOG_LEVEL=info keeps its request lines quiet. */
  echo?: (line: string) => boolean;
}

const LISTENING = /listening on (https?:\/\/\S+)/i;

export function nodeWithTsx(args: string[]): string[] {
  return ['--import', 'tsx', ...args];
}

/**
 * The service is measured as it runs in production: compiled (`npm run build`), not through tsx,
 * whose loader thread and in-process transpiler add ~55 MB of resident memory and some CPU.
 */
export function buildService(cwd: string): number {
  const startedAt = Date.now();
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status ?? build.signal})`);
  return (Date.now() - startedAt) / 1000;
}

/** Node arguments that run the compiled service's CLI (after buildService). */
export function serviceArgs(args: string[]): string[] {
  return ['dist/cli/main.js', ...args];
}

export async function startChildServer(options: SpawnOptions): Promise<ChildServer> {
  const child = spawn(process.execPath, options.args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let exitSignal: NodeJS.Signals | null = null;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      exitSignal = signal;
      resolve(code);
    }),
  );
  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
  };

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.label} did not print its URL within ${options.startTimeoutMs ?? 120_000} ms`)), options.startTimeoutMs ?? 120_000);
    let found = false;
    // The service prints its banner on stderr (its stdout is JSON log lines); the ceiling server on stdout.
    const onLine = (line: string) => {
      options.onLine?.(line);
      const match = found ? null : LISTENING.exec(line);
      if (match) {
        found = true;
        clearTimeout(timer);
        resolve(match[1].replace('//localhost:', '//127.0.0.1:'));
        return;
      }
      remember(line);
      if (options.echo?.(line) ?? true) process.stderr.write(`[${options.label}] ${line}\n`);
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    void exited.then((code) => {
      if (found) return;
      clearTimeout(timer);
      reject(new Error(`${options.label} exited (${code === null ? `signal ${exitSignal}` : `code ${code}`}) before listening:\n${tail.join('\n')}`));
    });
  }).catch(async (error: unknown) => {
    await stopChild(child, exited, options.stopGraceMs);
    throw error;
  });

  return { url, pid: child.pid!, stop: () => stopChild(child, exited, options.stopGraceMs) };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>, graceMs = 15_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Polls GET /health until it answers 200. */
export async function waitForHealth(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(new URL('/health', url));
      if (response.ok) return;
      last = `HTTP ${response.status}: ${await response.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url}/health did not answer 200 within ${timeoutMs} ms (${last})`);
}

/*
 * A duration run ends with up to `connections` requests in flight that the client abandons but the
 * server still completes; on PGlite (one query at a time), or with large responses, that backlog can
 * take seconds and would be measured as the next run's latency. The server is idle when /health
 * (which waits in the same database queue) answers quickly and its process uses almost no CPU.
 */
export async function waitUntilIdle(url: string, pid: number, timeoutMs = 120_000): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const sent = performance.now();
    try {
      const response = await fetch(new URL('/health', url));
      await response.arrayBuffer();
    } catch {
      // A refused or reset connection is no sign of idleness; try again.
    }
    const healthMs = performance.now() - sent;
    if (healthMs < 50 && (await cpuShare(pid, 200)) < 0.1) return;
  }
  throw new Error(`${url} did not become idle within ${timeoutMs} ms`);
}

/** Share of one core the process used over the next `windowMs` (from /proc/<pid>/stat). */
async function cpuShare(pid: number, windowMs: number): Promise<number> {
  const ticks = () => {
    try {
      // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  };
  const before = ticks();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  // Linux reports in USER_HZ, 100 per second on every common configuration.
  return (ticks() - before) / 100 / (windowMs / 1000);
}

/*
 * Resident memory of a process from /proc/<pid>/status, sampled on a timer. VmHWM (the kernel's own
 * peak) is read as well, so a spike between two samples is not missed in the overall maximum.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private peakKb = 0;
  private windowPeakKb = 0;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** Starts a new window (e.g. one scenario); windowPeakMb() reports the peak since then. */
  resetWindow(): void {
    this.windowPeakKb = this.read()?.rssKb ?? 0;
  }

  windowPeakMb(): number {
    this.sample();
    return this.windowPeakKb / 1024;
  }

  /** Stops sampling; call before the process exits so that VmHWM is still readable. */
  stop(): number {
    this.sample();
    if (this.timer) clearInterval(this.timer);
    return this.peakMb();
  }

  peakMb(): number {
    return this.peakKb / 1024;
  }

  private sample(): void {
    const reading = this.read();
    if (!reading) return;
    this.windowPeakKb = Math.max(this.windowPeakKb, reading.rssKb);
    this.peakKb = Math.max(this.peakKb, reading.rssKb, reading.hwmKb);
  }

  private read(): { rssKb: number; hwmKb: number } | undefined {
    return readRss(this.pid);
  }
}

/** Resident set size and its high-water mark of a process, from /proc (Linux); undefined once it is gone. */
export function readRss(pid: number): { rssKb: number; hwmKb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return undefined;
  }
}
