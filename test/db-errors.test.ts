import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnavailable } from '../src/db/errors.js';

/*
 * The classification behind 500 versus 503, fed with errors the drivers really produce (no hand-made
 * look-alikes): sockets refused, closed or silent, pool and query timeouts, a terminated backend.
 */
const serverUrl = process.env.TEST_DATABASE_URL;

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('isUnavailable', () => {
  let closedPort: number;
  let silent: net.Server;
  let hangUp: net.Server;
  const held: net.Socket[] = [];

  const listen = async (server: net.Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  };

  beforeAll(async () => {
    const probe = net.createServer();
    closedPort = await listen(probe);
    await new Promise((resolve) => probe.close(resolve));
    silent = net.createServer((socket) => held.push(socket));
    hangUp = net.createServer((socket) => socket.destroy());
  });
  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    await new Promise((resolve) => silent.close(resolve));
    await new Promise((resolve) => hangUp.close(resolve));
  });

  it('classifies a refused connection (ECONNREFUSED)', async () => {
    const error = await failure(() => new pg.Client({ host: '127.0.0.1', port: closedPort }).connect());
    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isUnavailable(error)).toBe(true);
  });

  it('classifies a connection closed by the peer (Connection terminated unexpectedly)', async () => {
    const port = await listen(hangUp);
    const error = await failure(() => new pg.Client({ host: '127.0.0.1', port }).connect());
    expect(String(error)).toMatch(/Connection terminated|ECONNRESET/);
    expect(isUnavailable(error)).toBe(true);
  });

  it('classifies a connect timeout and a wait for a free pooled connection that times out', async () => {
    const port = await listen(silent);
    const pool = new pg.Pool({ host: '127.0.0.1', port, max: 1, connectionTimeoutMillis: 200 });
    pool.on('error', () => {});
    const [connecting, waiting] = await Promise.all([failure(() => pool.connect()), failure(() => pool.connect())]);
    expect(String(connecting)).toMatch(/connection timeout/);
    expect(String(waiting)).toMatch(/timeout exceeded when trying to connect/);
    expect(isUnavailable(connecting)).toBe(true);
    expect(isUnavailable(waiting)).toBe(true);
    await pool.end();
  });

  it('does not classify PGlite errors (an in-process database has no connection to lose)', async () => {
    const pglite = new PGlite();
    try {
      const error = await failure(() => pglite.query('SELECT * FROM missing_table'));
      expect(isUnavailable(error)).toBe(false);
    } finally {
      await pglite.close();
    }
  });

  it('does not classify anything else', () => {
    for (const error of [new Error('boom'), new TypeError('x is undefined'), { code: '23505' }, { code: 'ERR_INVALID_ARG_TYPE' }, null, undefined, 'ECONNREFUSED']) {
      expect(isUnavailable(error)).toBe(false);
    }
    // Wrapped causes and AggregateError (several addresses tried) are looked into.
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' });
    expect(isUnavailable(new AggregateError([refused], 'all addresses failed'))).toBe(true);
    expect(isUnavailable(new Error('query failed', { cause: refused }))).toBe(true);
    // A full disk: the write is refused whole and works once space is freed.
    expect(isUnavailable(Object.assign(new Error('could not extend file "base/1/2": No space left on device'), { code: '53100' }))).toBe(true);
    expect(isUnavailable(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))).toBe(true);
  });

  describe.skipIf(!serverUrl)('on PostgreSQL', () => {
    it('classifies a terminated backend (57P01) and a query read timeout, not a SQL error', async () => {
      const victim = new pg.Client({ connectionString: serverUrl });
      victim.on('error', () => {});
      await victim.connect();
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      try {
        const sqlError = await failure(() => victim.query('SELECT * FROM missing_table'));
        expect((sqlError as { code?: string }).code).toBe('42P01');
        expect(isUnavailable(sqlError)).toBe(false);

        const pid = (await victim.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        const sleeping = failure(() => victim.query('SELECT pg_sleep(10)'));
        await new Promise((resolve) => setTimeout(resolve, 100));
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        const terminated = await sleeping;
        expect((terminated as { code?: string }).code).toBe('57P01');
        expect(isUnavailable(terminated)).toBe(true);
      } finally {
        await victim.end().catch(() => {});
      }

      const slow = new pg.Client({ connectionString: serverUrl, query_timeout: 100 });
      await slow.connect();
      try {
        const timedOut = await failure(() => slow.query('SELECT pg_sleep(2)'));
        expect(String(timedOut)).toMatch(/Query read timeout/);
        expect(isUnavailable(timedOut)).toBe(true);
      } finally {
        await slow.end().catch(() => {});
        await admin.end();
      }
    });
  });
});
