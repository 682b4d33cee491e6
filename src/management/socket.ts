import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { join, resolve } from 'node:path';

/*
 * Management while serving on the embedded database. Only one process may open a PGlite directory
 * (src/db/data-dir-lock.ts), so while the service runs, a CLI command (keys, import, seed-demo,
 * migrate) is run by the service itself: the CLI sends its arguments over a Unix socket inside the
 * data directory, the service runs the same command on its own database and sends back what it
 * prints and its exit code. Nothing listens on TCP; the socket file is readable and writable by its
 * owner only (the directory's owner, who could open the database files anyway).
 *
 * Protocol: newline-delimited JSON. Request: {argv, cwd}. Replies: {out} / {err} (text as printed,
 * to stdout / stderr), then one {exit}.
 */
export const SOCKET_FILE = 'catalogue.sock';

/** Unix socket paths are limited to 107 bytes on Linux. */
const MAX_SOCKET_PATH = 107;

export interface CommandRequest {
  argv: string[];
  /** The caller's working directory, against which relative paths in argv are resolved. */
  cwd: string;
}

export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export type CommandRunner = (request: CommandRequest, io: CommandIo) => Promise<number>;

type Reply = { out: string } | { err: string } | { exit: number };

export function managementSocketPath(dataDir: string): string {
  return join(resolve(dataDir), SOCKET_FILE);
}

export class ManagementUnavailableError extends Error {
  override name = 'ManagementUnavailableError';
}

/** Serves commands on the data directory's socket; one command at a time, in arrival order. */
export async function listenForCommands(dataDir: string, run: CommandRunner): Promise<{ close(): Promise<void> }> {
  const path = managementSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) throw new ManagementUnavailableError(`the socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes`);
  // This process holds the directory's lock, so a socket file left there is a dead process's.
  rmSync(path, { force: true });
  let queue = Promise.resolve();
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    socket.on('error', () => {});
    readRequest(socket).then(
      (request) => {
        queue = queue.then(() => runOne(socket, request, run));
      },
      (error: Error) => send(socket, [{ err: `error: ${error.message}\n` }, { exit: 1 }]),
    );
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  chmodSync(path, 0o600);
  return {
    async close() {
      await new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        for (const socket of connections) socket.destroy();
      });
      rmSync(path, { force: true });
    },
  };
}

async function runOne(socket: Socket, request: CommandRequest, run: CommandRunner): Promise<void> {
  const write = (reply: Reply) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
  };
  let code: number;
  try {
    code = await run(request, { stdout: (text) => write({ out: text }), stderr: (text) => write({ err: text }) });
  } catch (error) {
    write({ err: `${(error as Error).stack ?? String(error)}\n` });
    code = 1;
  }
  send(socket, [{ exit: code }]);
}

function send(socket: Socket, replies: Reply[]): void {
  if (socket.destroyed) return;
  socket.end(replies.map((reply) => `${JSON.stringify(reply)}\n`).join(''));
}

function readRequest(socket: Socket): Promise<CommandRequest> {
  return new Promise((resolvePromise, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const end = buffer.indexOf('\n');
      if (end < 0) {
        if (buffer.length > 1_000_000) done(() => reject(new Error('management request too large')));
        return;
      }
      done(() => {
        const value = JSON.parse(buffer.slice(0, end)) as Partial<CommandRequest>;
        if (!Array.isArray(value.argv) || !value.argv.every((arg) => typeof arg === 'string') || typeof value.cwd !== 'string') {
          throw new Error('malformed management request');
        }
        resolvePromise({ argv: value.argv, cwd: value.cwd });
      });
    };
    const done = (settle: () => void) => {
      socket.off('data', onData);
      try {
        settle();
      } catch (error) {
        reject(error as Error);
      }
    };
    socket.on('data', onData);
    socket.once('end', () => reject(new Error('management request cut short')));
  });
}

/**
 * Sends a command to the process serving `dataDir` and relays what it prints; resolves with its exit
 * code. Rejects with ManagementUnavailableError when nothing answers on the socket.
 */
export function sendCommand(dataDir: string, request: CommandRequest, io: CommandIo, onHandedOver?: () => void): Promise<number> {
  const path = managementSocketPath(dataDir);
  return new Promise((resolvePromise, reject) => {
    const socket = createConnection(path);
    let connected = false;
    let buffer = '';
    let exit: number | undefined;
    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
      onHandedOver?.();
    });
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const reply = JSON.parse(buffer.slice(0, end)) as Reply;
        buffer = buffer.slice(end + 1);
        if ('out' in reply) io.stdout(reply.out);
        else if ('err' in reply) io.stderr(reply.err);
        else exit = reply.exit;
      }
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (!connected) reject(new ManagementUnavailableError(`nothing answers on ${path} (${error.code ?? error.message})`));
    });
    socket.once('close', () => {
      if (!connected) return;
      if (exit === undefined) reject(new ManagementUnavailableError('the serving process closed the connection before the command finished'));
      else resolvePromise(exit);
    });
  });
}
