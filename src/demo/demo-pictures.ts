import { deflateSync } from 'node:zlib';
import { mulberry32 } from './seeded-random.js';

/*
 * Pictures for the demo catalogue, drawn here rather than downloaded: each stored path (a project's
 * cover, gallery image, floor plan, a company logo) gets its own small PNG, the same every time (the
 * colours and the skyline come from a hash of the path). About 4 to 12 kB each; only the files a page
 * shows are ever drawn. Documents (PDF) get a one-page PDF naming the file.
 */
const WIDTH = 480;
const HEIGHT = 300;

/** FNV-1a of the path: the seed of everything drawn for it. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

type Rgb = [number, number, number];

function hsl(h: number, s: number, l: number): Rgb {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

/** A skyline at dusk or by day: a sky gradient, a sea or desert band, towers with lit windows. */
export function drawPicture(path: string): Buffer {
  const random = mulberry32(hash(path));
  const hue = random() * 360;
  const skyTop = hsl(hue, 0.55, 0.35 + random() * 0.2);
  const skyBottom = hsl((hue + 40) % 360, 0.7, 0.75);
  const ground = hsl(random() < 0.5 ? 205 : 38, 0.45, 0.45);
  const horizon = Math.round(HEIGHT * (0.68 + random() * 0.1));
  const pixels = new Uint8Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    const t = y / horizon;
    const colour: Rgb = y < horizon ? [0, 1, 2].map((c) => Math.round(skyTop[c] + (skyBottom[c] - skyTop[c]) * t)) as Rgb : ground;
    for (let x = 0; x < WIDTH; x++) pixels.set(colour, (y * WIDTH + x) * 3);
  }
  const towers = 5 + Math.floor(random() * 6);
  for (let i = 0; i < towers; i++) {
    const width = 24 + Math.floor(random() * 50);
    const left = Math.floor(random() * (WIDTH - width));
    const top = Math.floor(HEIGHT * (0.12 + random() * 0.45));
    const body = hsl(hue, 0.15, 0.18 + random() * 0.2);
    const lit = hsl(48, 0.9, 0.7);
    for (let y = top; y < horizon; y++) {
      for (let x = left; x < left + width; x++) {
        const window = (x - left) % 8 >= 3 && (x - left) % 8 < 6 && (y - top) % 10 >= 3 && (y - top) % 10 < 7 && x < left + width - 3;
        pixels.set(window && (x * 7 + y * 13 + i) % 5 !== 0 ? lit : body, (y * WIDTH + x) * 3);
      }
    }
  }
  return encodePng(WIDTH, HEIGHT, pixels);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An 8-bit RGB PNG (filter 0 on every row, deflated). */
function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', new Uint8Array())]);
}

/** A one-page PDF that names the document (brochures, plans sent as PDF). */
export function drawDocument(path: string): Buffer {
  const title = path.split('/').pop()!.replace(/[()\\]/g, '');
  const text = `BT /F1 18 Tf 72 720 Td (Demo document: ${title}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets = objects.map((object, i) => {
    const offset = body.length;
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
