import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drawDocument, drawPicture } from './demo-pictures.js';

/*
 * The demo's file host: what STATIC_BASE_URL points at when the demo runs, so that every file `url`
 * of the demo catalogue is a working link. It serves the picture or document drawn for the path
 * (demo-pictures.ts), never a file from disk. Images are PNG whatever the stored extension says (the
 * Content-Type tells the browser); drawn once per path and kept.
 */
const IMAGE = /\.(jpe?g|png|webp|gif)$/i;
const DOCUMENT = /\.pdf$/i;

export interface StaticHost {
  url: string;
  close(): Promise<void>;
}

export async function startStaticHost(options: { port?: number; host?: string } = {}): Promise<StaticHost> {
  const drawn = new Map<string, { type: string; body: Buffer }>();
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://host.invalid').pathname).replace(/^\/+/, '');
    let file = drawn.get(path);
    if (!file && IMAGE.test(path)) file = { type: 'image/png', body: drawPicture(path) };
    if (!file && DOCUMENT.test(path)) file = { type: 'application/pdf', body: drawDocument(path) };
    if (!file || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    drawn.set(path, file);
    response.writeHead(200, {
      'content-type': file.type,
      'content-length': file.body.length,
      'cache-control': 'public, max-age=86400',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
    });
    response.end(request.method === 'HEAD' ? undefined : file.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
