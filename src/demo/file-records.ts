import type { Row } from './bundle-record.js';
import type { Rng } from './seeded-random.js';
import { ts } from './timestamps.js';

/*
 * Logos, avatars, documents and images are referenced by file id from many tables. One registry per
 * bundle numbers them in the order they are made, which is why every generator adds its files through it.
 */

export type AddFile = (path: string, originalName: string, mime: string, minKb: number, maxKb: number, createdDays: number) => number;

export function fileRegistry(rng: Rng): { files: Row<'files'>[]; addFile: AddFile } {
  const files: Row<'files'>[] = [];
  const addFile: AddFile = (path, originalName, mime, minKb, maxKb, createdDays) => {
    const id = files.length + 1;
    const ext = path.slice(path.lastIndexOf('.'));
    files.push({
      id,
      path,
      original_name: originalName,
      storage_name: `${rng.hex(32)}${ext}`,
      mime_type: mime,
      size: rng.int(minKb * 1024, maxKb * 1024),
      created_at: ts(createdDays),
      updated_at: ts(createdDays),
    });
    return id;
  };
  return { files, addFile };
}
