import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { baseBundle } from './helpers/fixtures.js';

/*
 * Requests Node's HTTP parser refuses before any route runs, and requests whose body never finishes
 * arriving, sent as raw bytes over a real socket (inject bypasses the parser and the timeouts). Every
 * answer is the `{status: "error", message}` envelope with a message saying what was wrong. No
 * database is involved beyond authenticating the stalled POST, so PGlite alone.
 */
const REQUEST_TIMEOUT_MS = 1_500;

interface RawResponse {
  statusCode: number;
  headers: string;
  body: string;
  /** Milliseconds from the first byte sent to the connection's close. */
  elapsedMs: number;
}

describe('HTTP framing errors and the request timeout, over a real socket', () => {
  let t: TestApp;
  let port: number;
  let key: string;

  beforeAll(async () => {
    t = await createTestApp('pglite', baseBundle(), {}, { requestTimeoutMs: REQUEST_TIMEOUT_MS });
    key = await t.key();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(() => t?.close());

  /** Sends each chunk after the previous one's delay, reads until the server closes the connection. */
  function raw(chunks: Array<Buffer | string | { waitMs: number }>): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const received: Buffer[] = [];
      const started = Date.now();
      socket.on('data', (data) => received.push(data));
      socket.on('error', () => {});
      socket.on('close', () => {
        const text = Buffer.concat(received).toString('utf8');
        const match = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(text);
        if (!match) return reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
        resolve({ statusCode: Number(match[1]), headers: match[2].toLowerCase(), body: match[3], elapsedMs: Date.now() - started });
      });
      socket.once('connect', async () => {
        for (const chunk of chunks) {
          if (socket.destroyed) return;
          if (typeof chunk === 'object' && 'waitMs' in chunk) await new Promise((r) => setTimeout(r, chunk.waitMs));
          else socket.write(chunk);
        }
      });
    });
  }

  const expectEnvelope = (res: RawResponse, statusCode: number, message: RegExp) => {
    expect(res.statusCode).toBe(statusCode);
    expect(res.headers).toMatch(/content-type: application\/json; charset=utf-8/);
    expect(JSON.parse(res.body)).toEqual({ status: 'error', message: expect.stringMatching(message) });
  };

  it('431 for headers of 60 KB, and for a URL of 100 KB', async () => {
    const big = await raw([`GET /whoIAm HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(60_000)}\r\n\r\n`]);
    expectEnvelope(big, 431, /^request headers are too large/);
    const longUrl = await raw([`GET /projects?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`]);
    expectEnvelope(longUrl, 431, /^request headers are too large/);
  });

  it('400 for a NUL in the path, bad UTF-8 in the request line, or a bad Content-Length', async () => {
    expectEnvelope(await raw(['GET /units/\u00001 HTTP/1.1\r\nHost: x\r\n\r\n']), 400, /^request line is not valid/);
    const badUtf8 = Buffer.concat([Buffer.from('GET /projects/'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]);
    expectEnvelope(await raw([badUtf8]), 400, /^request line is not valid/);
    for (const length of ['abc', '-1', '1, 2']) {
      const res = await raw([`POST /applications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{}`]);
      expectEnvelope(res, 400, /^Content-Length header is not valid$/);
    }
  });

  it('408 with the envelope when a body stalls or trickles past the request timeout, within about a second of it', async () => {
    const head = `POST /applications HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
    const stalled = await raw([head, '{"client":']);
    expectEnvelope(stalled, 408, /^request timed out: its headers and body must arrive within 1.5 s$/);
    // A byte every 100 ms keeps the connection busy, but the request still has to end in time.
    const trickle = await raw([head, ...Array.from({ length: 60 }, () => [{ waitMs: 100 }, ' ']).flat()]);
    expectEnvelope(trickle, 408, /^request timed out/);
    for (const res of [stalled, trickle]) {
      expect(res.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      expect(res.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_500);
    }
  });

  it('408 with the envelope when the headers never finish', async () => {
    const res = await raw(['GET /whoIAm HTTP/1.1\r\nHost: x\r\n']);
    expectEnvelope(res, 408, /^request timed out/);
    expect(res.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_500);
  });

  it('a well-formed request on the same listener is answered normally', async () => {
    const res = await raw([`GET /whoIAm HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`]);
    expect(res.statusCode).toBe(200);
  });
});
