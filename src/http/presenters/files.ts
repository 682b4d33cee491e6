import type { FileRow } from '../../queries/project-detail.js';
import type { LinkBuilder } from '../links.js';

/** A stored file as the API shows it: the row with its ready-to-use link (STATIC_BASE_URL + path). */
export function toFileObject(file: FileRow, links: LinkBuilder) {
  return { ...file, url: links(file.path)! };
}

/** The same for an optional file reference. */
export function toOptionalFileObject(file: FileRow | null, links: LinkBuilder) {
  return file ? toFileObject(file, links) : null;
}
