import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { baseBundle, DEV, withRecords } from './helpers/fixtures.js';
import { callTool, listen, mcpClient } from './helpers/mcp.js';

/*
 * A full disk met by a write (issue 51): the statement that needs space fails with the engine's own
 * error, SQLSTATE 53100 disk_full and "No space left on device", as PostgreSQL and PGlite raise it
 * when a file cannot be extended. The failure is produced in the database by a trigger on the table the
 * application writes (the engine's real error, raised where a real one would be), so both databases
 * are exercised through every door that writes: REST applications and MCP submit_application answer
 * 503 with Retry-After, never 500, and the same request succeeds once space is back.
 * (pglite-full-disk.test.ts fills a real tmpfs during an import.)
 */
const UNIT = 1000;
const catalogue = () =>
  withRecords(baseBundle(), {
    projects: [{ id: 100, company_id: DEV, name: 'Marina Heights', area_id: 1 }],
    units: [{ id: UNIT, project_id: 100, unit_number: 'A-101', price: 1_000_000, bedrooms: 2 }],
  });

describe.each(drivers)('a full disk on a write path (%s)', (driver) => {
  let t: TestApp;
  let key: string;
  let baseUrl: string;

  async function fillDisk() {
    await sql
      .raw(
        `CREATE FUNCTION disk_full_now() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           RAISE EXCEPTION 'could not extend file "base/16384/16999": No space left on device' USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
         END $$`,
      )
      .execute(t.db);
    await sql.raw(`CREATE TRIGGER offers_disk_full BEFORE INSERT ON offers FOR EACH ROW EXECUTE FUNCTION disk_full_now()`).execute(t.db);
  }
  const freeDisk = () => sql.raw(`DROP TRIGGER offers_disk_full ON offers`).execute(t.db);
  const apply = (idempotencyKey: string) =>
    t.app.inject({
      method: 'POST',
      url: `/units/${UNIT}/applications`,
      headers: { 'x-api-key': key, 'idempotency-key': idempotencyKey },
      payload: { client: { first_name: 'Layla', email: `layla.${idempotencyKey}@example.com` } },
    });

  beforeAll(async () => {
    t = await createTestApp(driver, catalogue());
    key = await t.key();
    baseUrl = await listen(t.app);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers an application 503 with Retry-After (REST and MCP), and takes the same request once space is back', async () => {
    await fillDisk();
    const idempotencyKey = randomUUID();
    const refused = await apply(idempotencyKey);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toEqual({ status: 'error', message: 'service unavailable, retry later' });

    const client = await mcpClient(baseUrl, { 'X-API-Key': key });
    try {
      const tool = await callTool(client, 'submit_application', { unit_id: UNIT, idempotency_key: randomUUID(), client: { first_name: 'Omar', email: 'omar@example.com' } });
      expect(tool.isError).toBe(true);
      expect(tool.structuredContent).toMatchObject({ status: 'error', http_status: 503 });
    } finally {
      await client.close();
    }
    // Nothing was written by the refused attempts.
    expect(await t.db.selectFrom('offers').select('id').execute()).toEqual([]);

    await freeDisk();
    const accepted = await apply(idempotencyKey);
    expect(accepted.statusCode).toBe(201);
  });
});
