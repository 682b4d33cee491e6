import { crc32, deflateSync } from 'node:zlib';

/*
 * The site icon (/favicon.ico): a 32×32 PNG in an ICO container, drawn here so that no binary file
 * has to be shipped next to the compiled code. Three tower blocks, white on the docs' accent blue.
 */
const SIZE = 32;
const BACKGROUND = [0x1f, 0x5f, 0xbf, 0xff];
const TOWER = [0xff, 0xff, 0xff, 0xff];
const CLEAR = [0, 0, 0, 0];
/** [left, right, top] of each tower (pixels, inclusive); all stand on the same ground line. */
const TOWERS: ReadonlyArray<readonly [number, number, number]> = [
  [6, 11, 14],
  [13, 19, 6],
  [21, 26, 18],
];
const GROUND = 26;
const RADIUS = 6;

function pixel(x: number, y: number): number[] {
  const cx = Math.min(Math.max(x, RADIUS), SIZE - 1 - RADIUS);
  const cy = Math.min(Math.max(y, RADIUS), SIZE - 1 - RADIUS);
  if ((x - cx) ** 2 + (y - cy) ** 2 > RADIUS ** 2) return CLEAR;
  const inTower = TOWERS.some(([left, right, top]) => x >= left && x <= right && y >= top && y <= GROUND);
  return inTower ? TOWER : BACKGROUND;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const rows: number[] = [];
  for (let y = 0; y < SIZE; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < SIZE; x++) rows.push(...pixel(x, y));
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function ico(image: Buffer): Buffer {
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.set([SIZE, SIZE, 0, 0], 6);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}

export const FAVICON_ICO: Buffer = ico(png());
