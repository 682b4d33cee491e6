import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedQuery } from '../src/db/prepared-query.js';
import { MAX_NAMED, PREPARED, StatementNames } from '../src/db/prepared-statements.js';
import type { DB } from '../src/db/schema.js';
import { createTestDatabase, drivers, type TestDatabase } from './helpers/databases.js';

/*
 * preparedQuery (built once, run with new values) and the named statements of the PostgreSQL pool:
 * the same rows as a query built afresh, every value in its own parameter, fragments spliced with
 * their own parameters, and the bounds on how many statements are named.
 */

describe('StatementNames', () => {
  it('names a text by its hash, the same name each time, different texts apart', () => {
    const names = new StatementNames();
    const a = names.nameFor('select $1');
    expect(a).toMatch(/^k[0-9a-f]{24}$/);
    expect(names.nameFor('select $1')).toBe(a);
    expect(names.nameFor('select $1 + 1')).not.toBe(a);
  });

  it(`stops naming new texts after ${MAX_NAMED}, and keeps the names it gave`, () => {
    const names = new StatementNames();
    for (let i = 0; i < MAX_NAMED; i++) expect(names.nameFor(`select ${i}, $1`)).toBeDefined();
    expect(names.nameFor('select one more, $1')).toBeUndefined();
    expect(names.nameFor('select 0, $1')).toBeDefined();
    expect(names.size).toBe(MAX_NAMED);
  });
});

describe.each(drivers)('preparedQuery (%s)', (driver) => {
  let t: TestDatabase;
  let db: Kysely<DB>;

  beforeAll(async () => {
    t = await createTestDatabase(driver);
    db = t.database.db;
    await db
      .insertInto('areas')
      .values([
        { id: 1, name: 'Dubai Marina', city: 'Dubai' },
        { id: 2, name: 'Downtown Dubai', city: 'Dubai' },
        { id: 3, name: 'Al Reem Island', city: 'Abu Dhabi' },
      ])
      .execute();
  });
  afterAll(() => t?.drop());

  const byCity = preparedQuery(
    (db: Kysely<DB>, p: { city: string; ids: number[]; label: string }) =>
      db
        .selectFrom('areas')
        .where('city', '=', p.city)
        .where(sql<SqlBool>`id = ANY(${sql.val(p.ids)}::int[])`)
        .select(['id', 'name', sql<string>`${p.label}::text`.as('label'), sql<boolean>`${true}::boolean`.as('constant')])
        .orderBy('id'),
    ['city', 'ids', 'label'],
  );

  it('gives each call its own values, constants kept as compiled', async () => {
    expect(await byCity(db, { city: 'Dubai', ids: [1, 2, 3], label: 'first' })).toEqual([
      { id: 1, name: 'Dubai Marina', label: 'first', constant: true },
      { id: 2, name: 'Downtown Dubai', label: 'first', constant: true },
    ]);
    expect(await byCity(db, { city: 'Abu Dhabi', ids: [3], label: 'second' })).toEqual([{ id: 3, name: 'Al Reem Island', label: 'second', constant: true }]);
    expect(await byCity(db, { city: 'Dubai', ids: [2], label: 'third' })).toEqual([{ id: 2, name: 'Downtown Dubai', label: 'third', constant: true }]);
  });

  it('refuses a builder that writes a value into the SQL text', async () => {
    const inlined = preparedQuery(
      (db: Kysely<DB>, p: { city: string }) => db.selectFrom('areas').where(sql<SqlBool>`city = ${sql.raw(`'${p.city}'`)}`).select('id'),
      ['city'],
    );
    await expect(inlined(db, { city: 'Dubai' })).rejects.toThrow('city did not become a query parameter');
  });

  it('splices a fragment with its own parameters, numbered after the cached ones', async () => {
    const filtered = preparedQuery(
      (db: Kysely<DB>, p: { city: string; filters: RawBuilder<SqlBool> }) =>
        db.selectFrom('areas').where('city', '=', p.city).where(p.filters).select(['id']).orderBy('id'),
      ['city'],
      ['filters'],
    );
    expect(await filtered(db, { city: 'Dubai', filters: sql<SqlBool>`TRUE` })).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await filtered(db, { city: 'Dubai', filters: sql<SqlBool>`(name ILIKE ${'%marina%'} AND id < ${10})` })).toEqual([{ id: 1 }]);
    expect(await filtered(db, { city: 'Abu Dhabi', filters: sql<SqlBool>`id = ANY(${sql.val([1, 3])}::int[])` })).toEqual([{ id: 3 }]);
  });

  it.runIf(driver === 'postgres')('names the statement: a connection parses it once, then only binds it', async () => {
    await db.connection().execute(async (connection) => {
      const before = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(connection);
      for (let i = 0; i < 3; i++) await byCity(connection, { city: 'Dubai', ids: [1], label: `run ${i}` });
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%"constant"%'`.execute(connection);
      expect(rows).toHaveLength(1);
      const after = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(connection);
      expect(after.rows[0].n - before.rows[0].n).toBeLessThanOrEqual(1);

      // Only statements marked PREPARED are named: any other query is planned each time, as Kysely sends it.
      await sql`SELECT ${1}::int AS not_marked`.execute(connection);
      await sql`${sql.raw(PREPARED)} SELECT ${1}::int AS marked`.execute(connection);
      const statements = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%marked%'`.execute(connection);
      expect(statements.rows.map((row) => row.statement)).toEqual([`${PREPARED} SELECT $1::int AS marked`]);

      // A query with a fragment is planned each time unless the caller says its plan may be reused.
      const withFragment = preparedQuery(
        (db: Kysely<DB>, p: { city: string; filters: RawBuilder<SqlBool> }) =>
          db.selectFrom('areas').where('city', '=', p.city).where(p.filters).select(['id', sql<string>`'fragment_marker'`.as('marker')]),
        ['city'],
        ['filters'],
      );
      const named = () =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%fragment_marker%'`.execute(connection);
      await withFragment(connection, { city: 'Dubai', filters: sql<SqlBool>`id > ${0}` });
      expect((await named()).rows[0].n).toBe(0);
      await withFragment(connection, { city: 'Dubai', filters: sql<SqlBool>`id > ${0}` }, { reusePlan: true });
      expect((await named()).rows[0].n).toBe(1);
    });
  });
});
