import { describe, expect, it } from 'vitest';
import {
  catalogueStartOverReason,
  CursorError,
  decodeCursor,
  encodeCursor,
  keyStartOverReason,
  RANK,
  type ChangesCursor,
} from '../src/domain/changes-cursor.js';

const cursor: ChangesCursor = { keyId: 7, priceVector: -7.3, version: 128, rank: RANK.unit, id: 1201, visibleOnlyThrough: 119 };

describe('GET /changes cursor', () => {
  it('round-trips, as URL-safe text', () => {
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
    expect(decodeCursor(encodeCursor({ ...cursor, rank: RANK.end, id: 0 }))).toEqual({ ...cursor, rank: RANK.end, id: 0 });
  });

  it('refuses text it did not issue, or issued and altered', () => {
    const text = encodeCursor(cursor);
    const [body, sum] = text.split('.');
    const json = JSON.parse(Buffer.from(body, 'base64url').toString());
    const reencoded = (value: unknown) => `${Buffer.from(JSON.stringify(value)).toString('base64url')}.${sum}`;
    const refused = [
      '',
      'abc',
      body,
      `${body}.${sum}.x`,
      `${body}x.${sum}`,
      `${body}.${sum.slice(1)}A`,
      reencoded({ ...json, at: 1 }), // an edited position: the checksum no longer matches
      `${Buffer.from('not json').toString('base64url')}.${sum}`,
    ];
    for (const candidate of refused) expect(() => decodeCursor(candidate), candidate).toThrow(CursorError);
  });

  it('checks the fields even when the checksum matches (an issued format it does not know)', async () => {
    const { createHash } = await import('node:crypto');
    const sign = (value: unknown) => {
      const json = JSON.stringify(value);
      return `${Buffer.from(json).toString('base64url')}.${createHash('sha256').update(json).digest('base64url').slice(0, 16)}`;
    };
    const good = { v: 1, key: 7, pv: 0, at: 5, rank: 1, id: 3, through: 5 };
    expect(decodeCursor(sign(good))).toMatchObject({ keyId: 7, version: 5 });
    for (const bad of [{ ...good, v: 2 }, { ...good, key: 0 }, { ...good, at: -1 }, { ...good, rank: 3 }, { ...good, id: 1.5 }, { ...good, pv: 'x' }, [1]]) {
      expect(() => decodeCursor(sign(bad)), JSON.stringify(bad)).toThrow(CursorError);
    }
  });

  it('says when to start over', () => {
    expect(keyStartOverReason(cursor, { id: 7, price_vector: -7.3 })).toBeUndefined();
    expect(keyStartOverReason(cursor, { id: 8, price_vector: -7.3 })).toBe('another key');
    expect(keyStartOverReason(cursor, { id: 7, price_vector: 0 })).toBe('price vector changed');
    expect(catalogueStartOverReason(cursor, { version: 128, horizon: 3 })).toBeUndefined();
    expect(catalogueStartOverReason(cursor, { version: 127, horizon: 3 })).toBe('ahead of the catalogue');
    expect(catalogueStartOverReason(cursor, { version: 500, horizon: 200 })).toBe('older than the feed');
  });
});
