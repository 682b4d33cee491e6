import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedCommands } from '../src/cli/commands.js';
import { loadConfig } from '../src/config/config.js';
import { importBundle } from '../src/import/import-bundle.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { startServer, type RunningServer } from '../src/service/server.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords } from './helpers/fixtures.js';

/*
 * Issue 51: a full disk met by applications, no import running (embedded database; the data
 * directory on a small tmpfs mounted here, root only, as pglite-full-disk.test.ts does). Every
 * application is answered 503 with Retry-After (never 500) while the disk is full, and is taken once
 * space is freed, without a restart.
 */
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn('pglite-full-disk-applications.test.ts skipped: mounting a small tmpfs needs root (CI runs as root)');

describe.skipIf(!isRoot)('a full disk during applications on the embedded database', () => {
  const base = mkdtempSync(join(tmpdir(), 'full-disk-apps-'));
  const mount = join(base, 'fs');
  const dataDir = join(mount, 'data');
  const filler = join(mount, 'filler');
  let mounted = false;
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    mkdirSync(mount);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=120m', 'tmpfs', mount]);
    mounted = true;
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    server = await startServer(config, { runCommand: servedCommands(() => config) });
    await importBundle(
      server.database.db,
      withRecords(baseBundle(), { projects: [{ id: 1, company_id: DEV, area_id: 1, name: 'Marina Tower' }], units: [{ id: 100, project_id: 1, unit_number: 'A-1', price: 1_500_000, unit_area: 80 }] }),
      { facilityLinkRadiusM: config.facilityLinkRadiusM },
    );
    ({ secret: key } = await createApiKey(server.database.db, { companyId: AGENCY, authorId: OWNER, name: 'full disk' }));
  }, 120_000);

  afterAll(async () => {
    await server?.stop().catch(() => {});
    if (mounted) execFileSync('umount', ['-l', mount]);
    rmSync(base, { recursive: true, force: true });
  });

  const apply = (i: number) =>
    fetch(`${server.url}/units/100/applications`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ client: { first_name: 'Layla', email: `layla.${i}.${randomUUID()}@example.com` }, message: 'x'.repeat(2000) }),
    });

  it('answers 503 with Retry-After while the disk is full, and takes applications again once space is freed', async () => {
    expect((await apply(0)).status).toBe(201);
    const { bavail, bsize } = statfsSync(mount);
    writeFileSync(filler, Buffer.alloc(bavail * bsize));
    const statuses = new Map<number, number>();
    let sawRetryAfter = true;
    for (let i = 1; i <= 60; i++) {
      const response = await apply(i);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 503 && response.headers.get('retry-after') === null) sawRetryAfter = false;
    }
    expect([...statuses.keys()].every((status) => status === 201 || status === 503), JSON.stringify([...statuses])).toBe(true);
    expect(statuses.get(503) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
    expect(sawRetryAfter).toBe(true);

    rmSync(filler);
    const deadline = Date.now() + 60_000;
    let status = 0;
    while (Date.now() < deadline && status !== 201) {
      status = (await apply(1000)).status;
      expect([201, 503]).toContain(status);
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(201);
  }, 240_000);
});
