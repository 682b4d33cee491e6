import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/*
 * The API as its own process (`catalogue serve`, one node process with tsx loaded, so that its pid is
 * the server's): for tests that kill it with SIGKILL or run several side by side.
 */
export interface ApiProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** SIGKILL: no shutdown, nothing finished or released. Resolves when the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM: the graceful shutdown. */
  stop(): Promise<void>;
}

const MAIN = join(process.cwd(), 'src', 'cli', 'main.ts');

export async function startApiProcess(env: Record<string, string>, timeoutMs = 120_000): Promise<ApiProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`API process did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    // The banner goes to stderr (JSON log lines to stdout).
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`API process exited (${code}) before listening:\n${output}`));
    });
  });
  return {
    child,
    url,
    output: () => output,
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
