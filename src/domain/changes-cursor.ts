import { createHash } from 'node:crypto';

/*
 * The cursor of GET /changes: where a client stands in the feed, and for which key and prices. Opaque
 * to clients: base64url of a JSON object with a format version, then a dot and a checksum of that
 * JSON, so that a cursor that was cut, edited or made up is refused (400) instead of being read as a
 * position that skips changes. It is not a secret and grants nothing: what a page lists is decided
 * by the key that sends it, never by the cursor.
 */

/** Where an entry sorts among entries of the same version: projects first, then units, then the end. */
export const RANK = { project: 0, unit: 1, end: 2 } as const;
export type Rank = (typeof RANK)[keyof typeof RANK];

export interface ChangesCursor {
  /** The key the cursor was issued to. */
  keyId: number;
  /** That key's price vector then: when it changes, every price changes (start over). */
  priceVector: number;
  /** Position: the last entry returned (version, rank, id), or (catalogue version, end, 0) once the feed was exhausted. */
  version: number;
  rank: Rank;
  id: number;
  /**
   * Entries of version <= this are listed only when visible: a client that started without a cursor
   * (at this catalogue version) has nothing to remove that changed before it started.
   */
  visibleOnlyThrough: number;
}

const FORMAT = 1;
const CHECKSUM_CHARS = 16;

export class CursorError extends Error {
  override name = 'CursorError';
}

export function encodeCursor(cursor: ChangesCursor): string {
  const json = JSON.stringify({
    v: FORMAT,
    key: cursor.keyId,
    pv: cursor.priceVector,
    at: cursor.version,
    rank: cursor.rank,
    id: cursor.id,
    through: cursor.visibleOnlyThrough,
  });
  return `${Buffer.from(json).toString('base64url')}.${checksum(json)}`;
}

/** The cursor, or a CursorError when the text is not a cursor this service issued. */
export function decodeCursor(text: string): ChangesCursor {
  const [body, sum, ...rest] = text.split('.');
  if (!body || !sum || rest.length > 0 || !/^[A-Za-z0-9_-]+$/.test(body)) throw new CursorError('not a cursor');
  const json = Buffer.from(body, 'base64url').toString('utf8');
  if (checksum(json) !== sum) throw new CursorError('checksum mismatch');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new CursorError('not JSON');
  }
  const fields = value as Record<string, unknown>;
  if (typeof value !== 'object' || value === null || fields.v !== FORMAT) throw new CursorError('unknown format');
  const { key, pv, at, rank, id, through } = fields;
  if (!isCount(key) || key < 1 || typeof pv !== 'number' || !Number.isFinite(pv) || !isCount(at) || !isCount(id) || !isCount(through)) {
    throw new CursorError('bad field');
  }
  if (rank !== RANK.project && rank !== RANK.unit && rank !== RANK.end) throw new CursorError('bad rank');
  return { keyId: key, priceVector: pv, version: at, rank, id, visibleOnlyThrough: through };
}

export type StartOverReason = 'another key' | 'price vector changed' | 'ahead of the catalogue' | 'older than the feed';

/** Why a well-formed cursor cannot be continued by this key, against the key before the query runs. */
export function keyStartOverReason(cursor: ChangesCursor, key: { id: number; price_vector: number }): StartOverReason | undefined {
  if (cursor.keyId !== key.id) return 'another key';
  if (cursor.priceVector !== key.price_vector) return 'price vector changed';
  return undefined;
}

/**
 * ... and against the catalogue the page was read from: a position past the catalogue's version is
 * from another (restored, replaced) database, one before the feed's horizon from before the feed.
 */
export function catalogueStartOverReason(cursor: ChangesCursor, catalogue: { version: number; horizon: number }): StartOverReason | undefined {
  if (cursor.version > catalogue.version || cursor.visibleOnlyThrough > catalogue.version) return 'ahead of the catalogue';
  if (cursor.version < catalogue.horizon) return 'older than the feed';
  return undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function checksum(json: string): string {
  return createHash('sha256').update(json).digest('base64url').slice(0, CHECKSUM_CHARS);
}
