import net from 'node:net';

/*
 * A TCP proxy between the app and PostgreSQL, so tests can take "the database" away from one app
 * without touching the shared server other tests use:
 *
 *   const proxy = await TcpProxy.start('127.0.0.1', 5432);
 *   openDatabase({ databaseUrl: proxy.rewrite(url) });
 *   await proxy.down();     // cut every connection, refuse new ones (ECONNREFUSED): server stopped
 *   proxy.blackhole();      // cut every connection, accept new ones but never answer: host unreachable
 *   await proxy.up();       // back to normal
 *   proxy.onClientData(hook) // inspect what the app sends and cut one connection at the right message
 */

/**
 * What to do with a chunk the app sends to PostgreSQL:
 * - forward: pass it on;
 * - cut: drop it and close the connection at both ends (the message never reaches the server);
 * - lose-reply: pass it on, then drop the server's answer and close both ends (the server acted on it,
 *   the app never learns the outcome).
 */
export type ChunkAction = 'forward' | 'cut' | 'lose-reply';
export type ClientHook = (chunk: Buffer) => ChunkAction;

type Mode = 'up' | 'down' | 'blackhole';

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
  loseReply: boolean;
}

export class TcpProxy {
  private readonly pairs = new Set<Pair>();
  private mode: Mode = 'up';
  private hook: ClientHook | undefined;
  private server: net.Server;
  /** Connections cut by a hook (not by down/blackhole). */
  cutCount = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    readonly port: number,
    server: net.Server,
  ) {
    this.server = server;
  }

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const server = net.createServer();
    await listen(server, 0);
    const proxy = new TcpProxy(targetHost, targetPort, (server.address() as net.AddressInfo).port, server);
    server.on('connection', (socket) => proxy.accept(socket));
    return proxy;
  }

  /** The same connection string, pointing at the proxy. */
  rewrite(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** Open client connections (whatever the mode). */
  get connections(): number {
    return this.pairs.size;
  }

  /** Every connection is reset and new ones are refused, as when PostgreSQL stops. */
  async down(): Promise<void> {
    this.mode = 'down';
    this.cutAll();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Every connection is reset; new ones are accepted and never answered, as when the host vanishes. */
  blackhole(): void {
    this.mode = 'blackhole';
    this.cutAll();
  }

  /** Accept and forward again, on the same port. */
  async up(): Promise<void> {
    if (this.mode === 'blackhole') this.cutAll();
    this.mode = 'up';
    if (!this.server.listening) {
      this.server = net.createServer((socket) => this.accept(socket));
      await listen(this.server, this.port);
    }
  }

  /** Consulted for every chunk the app sends, until replaced or cleared (undefined). */
  onClientData(hook: ClientHook | undefined): void {
    this.hook = hook;
  }

  async close(): Promise<void> {
    this.hook = undefined;
    this.cutAll();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    const pair: Pair = { client, loseReply: false };
    this.pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      this.pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (this.mode !== 'up') {
      // blackhole: hold the socket open and say nothing; down: the listener is closed, but a
      // connection accepted in the same tick still has to go.
      if (this.mode === 'down') client.destroy();
      return;
    }

    const upstream = net.connect(this.targetPort, this.targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk) => {
      if (pair.loseReply) {
        this.cutCount++;
        cut(pair);
        return;
      }
      client.write(chunk);
    });
    client.on('data', (chunk) => {
      rememberNamedStatements(chunk);
      const action = this.hook?.(chunk) ?? 'forward';
      if (action === 'cut') {
        this.cutCount++;
        cut(pair);
        return;
      }
      if (action === 'lose-reply') pair.loseReply = true;
      upstream.write(chunk);
    });
  }

  private cutAll(): void {
    for (const pair of this.pairs) cut(pair);
    this.pairs.clear();
  }
}

function cut(pair: Pair): void {
  pair.client.resetAndDestroy();
  pair.upstream?.resetAndDestroy();
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * True when the chunk holds a simple-protocol Query message ('Q') whose text is `text` (compared
 * case-insensitively), e.g. Kysely's `commit`. Parameterised statements use Parse ('P') instead.
 */
export function hasSimpleQuery(chunk: Buffer, text: string): boolean {
  const wanted = `${text.toLowerCase()}\0`;
  let offset = 0;
  while (offset + 5 <= chunk.length) {
    const type = chunk[offset];
    const length = chunk.readInt32BE(offset + 1);
    if (length < 4) return false;
    if (type === 0x51 && chunk.toString('utf8', offset + 5, offset + 1 + length).toLowerCase() === wanted) return true;
    offset += 1 + length;
  }
  return false;
}

/** Frontend messages of a chunk: type byte and body (chunks are assumed to hold whole messages). */
function* messages(chunk: Buffer): Generator<{ type: number; body: Buffer }> {
  let offset = 0;
  while (offset + 5 <= chunk.length) {
    const length = chunk.readInt32BE(offset + 1);
    if (length < 4) return;
    yield { type: chunk[offset], body: chunk.subarray(offset + 5, offset + 1 + length) };
    offset += 1 + length;
  }
}

const cstrings = (body: Buffer, count: number): string[] => body.toString('utf8').split('\0').slice(0, count);

/*
 * The app names its prepared statements (src/db/prepared-statements.ts): a connection sends a
 * statement's text once, in a Parse message, and afterwards only a Bind naming it. The texts of the
 * named statements seen so far, by name, so that a Bind can be recognised as well.
 */
const namedStatements = new Map<string, string>();

function rememberNamedStatements(chunk: Buffer): void {
  for (const { type, body } of messages(chunk)) {
    if (type !== 0x50) continue; // Parse: statement name, query text, …
    const [name, text] = cstrings(body, 2);
    if (name) namedStatements.set(name, text.toLowerCase());
  }
}

/** True when the chunk sends a statement containing `sql`: its text (Parse) or a Bind of a named statement with that text. */
export function hasStatement(chunk: Buffer, sql: string): boolean {
  const wanted = sql.toLowerCase();
  if (chunk.toString('utf8').toLowerCase().includes(wanted)) return true;
  for (const { type, body } of messages(chunk)) {
    if (type !== 0x42) continue; // Bind: portal name, statement name, …
    const [, statement] = cstrings(body, 2);
    if (namedStatements.get(statement)?.includes(wanted)) return true;
  }
  return false;
}
