import { at, type AnyRecord } from './bundle-records.js';

/*
 * The one error a bad bundle gives, whichever step finds the problem: the CLI reports it as the user's
 * mistake (its message, no stack), so a refusal by the database is turned into one as well, naming the
 * section and, where the database says enough, the record and field.
 */

export class BundleError extends Error {
  override name = 'BundleError';
}

interface DatabaseError {
  code: string;
  message: string;
  detail?: string;
}

/** PostgreSQL errors (pg and PGlite alike) carry the five-character SQLSTATE in `code`. */
function isDatabaseError(error: unknown): error is DatabaseError {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * The checks (check-bundle.ts) should leave the database nothing to refuse; should it refuse anyway (a
 * constraint they do not know about, a race with another writer), the error still names the section
 * and, when the constraint's detail identifies it, the record and field.
 */
export async function inSection<T>(section: string, list: AnyRecord[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BundleError || !isDatabaseError(error)) throw error;
    const where = locateRecord(section, list, error.detail);
    throw new BundleError(`${where}: ${error.message}${error.detail ? ` (${error.detail})` : ''}`, { cause: error });
  }
}

/** `Key (project_id)=(99) is not present ...` -> the first record with project_id 99. */
function locateRecord(section: string, list: AnyRecord[], detail: string | undefined): string {
  const match = detail?.match(/^Key \((.+?)\)=\((.*)\)/);
  if (!match) return section;
  const fields = match[1].split(', ');
  const values = match[2].split(', ');
  if (fields.length !== values.length) return section;
  const index = list.findIndex((record) => fields.every((field, i) => record[field] != null && String(record[field]) === values[i]));
  return index === -1 ? section : at(section, index, fields[fields.length - 1]);
}
