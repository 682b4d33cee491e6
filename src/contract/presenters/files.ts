import type { LinkBuilder } from '../links.js';

/** A stored file as the API shows it: the row (FileRow of the queries) with its ready-to-use link (STATIC_BASE_URL + path). */
export function toFileObject<F extends { path: string }>(file: F, links: LinkBuilder) {
  return { ...file, url: links(file.path)! };
}

/** The same for an optional file reference. */
export function toOptionalFileObject<F extends { path: string }>(file: F | null, links: LinkBuilder) {
  return file ? toFileObject(file, links) : null;
}
