import { createHash } from 'node:crypto';
import { type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../src/db/schema.js';
import { useTestApp, type TestApp } from './helpers/app.js';
import { drivers } from './helpers/databases.js';
import { AGENCY, baseBundle, DEV, DEV_PENDING, OWNER, TS } from './helpers/fixtures.js';
import { EARTH_RADIUS_M, east, expectRefused, facility, haversineM, linksOf, north, radians, RADIUS_M, rows, run, secret, snapshot, sourceIds } from './helpers/import.js';

/*
 * The bundle importer against its contract (../shared/spec/catalogue-bundle.md, docs/bundle.md), this
 * file: what each section of a bundle stores and how the API shows it. Every
 * rule is checked on the stored rows and, where the API shows the data, over HTTP. Each describe block
 * owns its database; tests inside one share it and keep to their own ids (and, for anything with
 * coordinates, their own part of the globe, more than the link radius away from everyone else's).
 */
/* ---------------------------------------------------------------------------------------------- */
/* Records                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

describe.each(drivers)('bundle records (%s)', (driver) => {
  let t: TestApp;
  let db: Kysely<DB>;
  let key: string;

  useTestApp(driver, baseBundle(), (started) => {
    ({ t, key } = started);
    db = t.db;
  });

  // GET /projects, /projects/{id} and /units/{id} are served from the search snapshot, which follows
  // imports by the change signal; on PostgreSQL that signal (NOTIFY) may still be in flight when the
  // import returns, so each read here rebuilds first (the signal has its own tests: search-refresh).
  const get = async (url: string, apiKey = key) => {
    await t.refresh();
    return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
  };
  const detail = async (projectId: number) => {
    const res = await get(`/projects/${projectId}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };

  it('upserts by id: a second import updates the records, it adds none', async () => {
    const first = {
      projects: [
        { id: 101, company_id: DEV, name: 'Harbour Point', description: 'First words.' },
        { id: 102, company_id: DEV_PENDING, name: 'Pending Towers' },
      ],
      units: [
        { id: 1011, project_id: 101, unit_number: 'H-1', price: 2000000, unit_area: 100 },
        { id: 1012, project_id: 101, unit_number: 'H-2', price: 900000, unit_area: 50 },
      ],
      company_members: [{ company_id: DEV, user_id: 111, role: 'broker' }],
      facilities: [facility('education', 7001, [-60, 0], { grade: 'old' }), facility('retail', 7001, [-60, 0])],
    };
    await run(db, first);
    const [facilityBefore] = await rows<{ id: number }>(db, `SELECT id FROM facilities WHERE category = 'education' AND source_id = '7001'`);
    expect((await get('/projects/102')).statusCode).toBe(404);

    await run(db, {
      projects: [
        { id: 101, company_id: DEV, name: 'Harbour Point II', description: 'New words.' },
        { id: 102, company_id: DEV_PENDING, name: 'Pending Towers' },
      ],
      units: [{ id: 1011, project_id: 101, unit_number: 'H-1', price: 2100000, unit_area: 100 }],
      company_members: [{ company_id: DEV, user_id: 111, role: 'manager' }],
      contracts: [{ agency_id: AGENCY, developer_id: DEV_PENDING, status: 'approved' }],
      // The same facility: category + source_id, the number and its text alike.
      facilities: [{ category: 'education', source_id: '7001', data: { name: 'renamed', grade: 'new', asset_latitude: -60, asset_longitude: 0 } }],
    });

    expect(await rows(db, 'SELECT id, name, description FROM projects WHERE id IN (101, 102) ORDER BY id')).toEqual([
      { id: 101, name: 'Harbour Point II', description: 'New words.' },
      { id: 102, name: 'Pending Towers', description: '' },
    ]);
    expect(await rows(db, 'SELECT id, price FROM units WHERE project_id = 101 ORDER BY id')).toEqual([
      { id: 1011, price: 2100000 },
      { id: 1012, price: 900000 },
    ]);
    expect(await rows(db, `SELECT role FROM company_members WHERE company_id = ${DEV} AND user_id = 111`)).toEqual([{ role: 'manager' }]);
    expect(await rows(db, `SELECT status FROM contracts WHERE agency_id = ${AGENCY} AND developer_id = ${DEV_PENDING}`)).toEqual([{ status: 'approved' }]);
    expect(await rows(db, `SELECT id, category, data FROM facilities WHERE source_id = '7001' ORDER BY category`)).toEqual([
      { id: facilityBefore.id, category: 'education', data: { name: 'renamed', grade: 'new', asset_latitude: -60, asset_longitude: 0 } },
      { id: expect.any(Number), category: 'retail', data: { name: 'retail 7001', asset_latitude: -60, asset_longitude: 0 } },
    ]);

    const harbour = await detail(101);
    expect(harbour).toMatchObject({ name: 'Harbour Point II', description: 'New words.' });
    expect(harbour.units.map((u: { id: number; price: number }) => [u.id, u.price])).toEqual([
      [1011, 2100000],
      [1012, 900000],
    ]);
    expect((await get('/projects/102')).statusCode).toBe(200);
  });

  it('a record states the whole row: an optional field left out or null goes back to its default', async () => {
    const full = {
      id: 111, company_id: DEV, name: 'Palm Crest', description: 'Beachfront.', address: 'Palm Jumeirah', is_branded: true,
      service_charge: 21.5, currency: 'USD', total_floors: 12, area_id: 1, tours: ['https://tours.example.com/palm-crest'],
    };
    await run(db, { projects: [full] });
    expect(await detail(111)).toMatchObject({ description: 'Beachfront.', is_branded: true, total_floors: 12, cost: { currency: 'USD', service_charge: 21.5 } });

    await run(db, { projects: [{ id: 111, company_id: DEV, name: 'Palm Crest', description: null, area_id: null }] });
    const [row] = await rows(
      db,
      'SELECT description, address, is_branded, service_charge, currency, total_floors, area_id, tours FROM projects WHERE id = 111',
    );
    expect(row).toEqual({ description: '', address: null, is_branded: false, service_charge: null, currency: 'AED', total_floors: 0, area_id: null, tours: [] });
    expect(await detail(111)).toMatchObject({
      description: '', is_branded: false, total_floors: 0, area_name: null, cost: { currency: 'AED', service_charge: null },
      media: { tours: [] },
    });
  });

  it('replaces link lists: payment plans, gallery (cover first), tours, presentations, features, unit tags, languages, domains', async () => {
    const files = [1201, 1202, 1203].map((id) => ({ id, path: `projects/121/image-${id}.jpg`, mime_type: 'image/jpeg' }));
    const apiKey = secret('records-lists');
    const project = (lists: Record<string, unknown>) => ({ id: 121, company_id: DEV, name: 'Gallery Heights', ...lists });
    const member = (languages?: string[]) => ({ company_id: DEV, user_id: 111, role: 'manager', languages });
    const keyRecord = (domains?: string[]) => ({ id: 40, company_id: AGENCY, author_id: OWNER, name: 'Lists', key: apiKey, allowed_domains: domains });

    await run(db, {
      files,
      company_members: [member(['English', 'Arabic', 'Hindi'])],
      api_keys: [keyRecord(['agency.ae', 'www.agency.ae'])],
      projects: [
        project({
          payment_plans: [{ type: 1, percent: 10 }, { type: 2, percent: 50 }, { type: 3, percent: 40 }],
          image_file_ids: [1201, 1202, 1203],
          tours: ['https://tours.example.com/a', 'https://tours.example.com/b'],
          presentations: ['https://docs.example.com/a.pdf', 'https://docs.example.com/b.pdf'],
          feature_ids: [1, 3, 4],
        }),
      ],
      units: [{ id: 1211, project_id: 121, unit_number: 'G-1', tag_ids: [1, 2, 3] }],
    });
    const tagLinks = () => rows<{ id: number; tag_id: number }>(db, 'SELECT id, tag_id FROM unit_tag_links WHERE unit_id = 1211 ORDER BY tag_id');
    const [, linkOfTag2, linkOfTag3] = await tagLinks();
    expect(await rows(db, 'SELECT tag_ids FROM units WHERE id = 1211')).toEqual([{ tag_ids: [1, 2, 3] }]);
    let shown = await detail(121);
    expect(shown.logo).toBe('projects/121/image-1201.jpg');
    expect(shown.media.images.map((image: { id: number }) => image.id)).toEqual([1201, 1202, 1203]);
    expect(shown.payment_plans).toEqual([{ type: 1, percent: 10 }, { type: 2, percent: 50 }, { type: 3, percent: 40 }]);

    // Shorter lists, in another order: the dropped entries go, the order is the bundle's.
    await run(db, {
      company_members: [member(['Arabic'])],
      api_keys: [keyRecord(['agency.ae'])],
      projects: [
        project({
          payment_plans: [{ type: 3, percent: 60 }, { type: 1, percent: 40 }],
          image_file_ids: [1203, 1201],
          tours: ['https://tours.example.com/b'],
          presentations: ['https://docs.example.com/a.pdf'],
          feature_ids: [3],
        }),
      ],
      units: [{ id: 1211, project_id: 121, unit_number: 'G-1', tag_ids: [3, 2] }],
    });
    expect(await rows(db, 'SELECT position, type, percent FROM project_payment_plans WHERE project_id = 121 ORDER BY position')).toEqual([
      { position: 0, type: 3, percent: 60 },
      { position: 1, type: 1, percent: 40 },
    ]);
    expect(await rows(db, 'SELECT position, file_id FROM project_images WHERE project_id = 121 ORDER BY position')).toEqual([
      { position: 0, file_id: 1203 },
      { position: 1, file_id: 1201 },
    ]);
    expect(await rows(db, 'SELECT feature_id FROM project_feature_links WHERE project_id = 121')).toEqual([{ feature_id: 3 }]);
    expect(await rows(db, 'SELECT tours, presentations FROM projects WHERE id = 121')).toEqual([
      { tours: ['https://tours.example.com/b'], presentations: ['https://docs.example.com/a.pdf'] },
    ]);
    // The links that stay keep their ids (the API shows them).
    expect(await tagLinks()).toEqual([linkOfTag2, linkOfTag3]);
    // The unit's own copy that the unit filters read follows, sorted.
    expect(await rows(db, 'SELECT tag_ids FROM units WHERE id = 1211')).toEqual([{ tag_ids: [2, 3] }]);
    expect(await rows(db, `SELECT languages FROM company_members WHERE company_id = ${DEV} AND user_id = 111`)).toEqual([{ languages: ['Arabic'] }]);
    expect(await rows(db, 'SELECT allowed_domains FROM api_keys WHERE id = 40')).toEqual([{ allowed_domains: ['agency.ae'] }]);

    shown = await detail(121);
    expect(shown.logo).toBe('projects/121/image-1203.jpg');
    expect(shown.media.images.map((image: { id: number }) => image.id)).toEqual([1203, 1201]);
    expect(shown.payment_plans).toEqual([{ type: 3, percent: 60 }, { type: 1, percent: 40 }]);
    expect(shown.media.tours).toEqual(['https://tours.example.com/b']);
    expect(shown.media.presentations).toEqual(['https://docs.example.com/a.pdf']);
    expect(shown.preferences).toEqual({ features: [], amenities: [{ id: 3, name: 'Swimming Pool', type: 2 }] });
    const unit = (await get('/units/1211')).json().data;
    expect(unit.preferences.map((p: { id: number; preference_id: number }) => [p.id, p.preference_id])).toEqual([
      [linkOfTag2.id, 2],
      [linkOfTag3.id, 3],
    ]);

    // Lists left out are empty.
    await run(db, { company_members: [member()], api_keys: [keyRecord()], projects: [project({})], units: [{ id: 1211, project_id: 121, unit_number: 'G-1' }] });
    for (const table of ['project_payment_plans', 'project_images', 'project_feature_links']) {
      expect(await rows(db, `SELECT * FROM ${table} WHERE project_id = 121`)).toEqual([]);
    }
    expect(await tagLinks()).toEqual([]);
    shown = await detail(121);
    expect(shown).toMatchObject({ logo: null, payment_plans: [], media: { images: [], tours: [], presentations: [] }, preferences: { features: [], amenities: [] } });
  });

  it('deleted: true soft-deletes companies, users, api_keys, projects and units; omitted restores them', async () => {
    const keySecret = secret('records-deleted');
    const records = (deleted?: boolean) => ({
      companies: [{ id: 20, company_type: 3, company_name: 'Vanishing Developments', deleted }],
      users: [{ id: 200, name: 'Vic Vanish', email: 'vic@vanishing.example', deleted }],
      company_members: [{ company_id: DEV, user_id: 200, role: 'broker' }],
      api_keys: [{ id: 41, company_id: AGENCY, author_id: OWNER, name: 'Vanishing key', key: keySecret, deleted }],
      projects: [
        { id: 131, company_id: DEV, name: 'Vanishing Project', deleted },
        { id: 132, company_id: 20, name: 'Project of a vanishing developer' },
        { id: 133, company_id: DEV, name: 'Project with a vanishing unit' },
      ],
      units: [
        { id: 1331, project_id: 133, unit_number: 'V-1', deleted },
        { id: 1332, project_id: 133, unit_number: 'V-2' },
      ],
    });
    const deletedAt = async () =>
      Object.fromEntries(
        (
          await rows<{ name: string; deleted_at: string | null }>(
            db,
            `SELECT 'company' AS name, deleted_at FROM companies WHERE id = 20
             UNION ALL SELECT 'user', deleted_at FROM users WHERE id = 200
             UNION ALL SELECT 'api_key', deleted_at FROM api_keys WHERE id = 41
             UNION ALL SELECT 'project', deleted_at FROM projects WHERE id = 131
             UNION ALL SELECT 'unit', deleted_at FROM units WHERE id = 1331`,
          )
        ).map((row) => [row.name, row.deleted_at]),
      );
    const visible = async () => ({
      project: (await get('/projects/131')).statusCode,
      developerProject: (await get('/projects/132')).statusCode,
      unit: (await get('/units/1331')).statusCode,
      units: (await detail(133)).units.map((u: { id: number }) => u.id),
      contacts: (await get('/projects/133/contacts')).json().data.workers.map((w: { user_id: number }) => w.user_id),
      key: (await get('/whoIAm', keySecret)).statusCode,
    });

    await run(db, { ...records(), contracts: [{ agency_id: AGENCY, developer_id: 20, status: 'approved' }] });
    expect(await deletedAt()).toEqual({ company: null, user: null, api_key: null, project: null, unit: null });
    const shown = { project: 200, developerProject: 200, unit: 200, units: [1331, 1332], key: 200 };
    expect(await visible()).toMatchObject(shown);
    expect((await visible()).contacts).toContain(200);

    await run(db, records(true));
    const deleted = await deletedAt();
    expect(Object.values(deleted).every((value) => typeof value === 'string')).toBe(true);
    expect(await rows(db, 'SELECT count(*)::int AS n FROM projects WHERE id = 131')).toEqual([{ n: 1 }]);
    const hidden = await visible();
    expect(hidden).toMatchObject({ project: 404, developerProject: 404, unit: 404, units: [1332], key: 401 });
    expect(hidden.contacts).not.toContain(200);

    // Deleting again keeps the time of the first deletion.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await run(db, records(true));
    expect(await deletedAt()).toEqual(deleted);

    await run(db, records());
    expect(await deletedAt()).toEqual({ company: null, user: null, api_key: null, project: null, unit: null });
    expect(await visible()).toMatchObject(shown);
  });

  it('api_keys: stores only the SHA-256 of the secret and its prefix, never the secret', async () => {
    const keySecret = secret('records-api-key');
    await run(db, {
      api_keys: [{ id: 42, company_id: AGENCY, author_id: OWNER, name: 'Partner site', key: keySecret, price_vector: 5, allowed_domains: ['partner.ae'] }],
    });
    const [row] = await rows(db, 'SELECT key_hash, key_prefix, name, price_vector FROM api_keys WHERE id = 42');
    expect(row).toEqual({ key_hash: createHash('sha256').update(keySecret).digest('hex'), key_prefix: keySecret.slice(0, 9), name: 'Partner site', price_vector: 5 });

    // Every column of api_keys that can hold text, searched for the secret and for the part the prefix does not show.
    const textColumns = await rows<{ column_name: string }>(
      db,
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'api_keys'
          AND (data_type IN ('text', 'character varying', 'character', 'json', 'jsonb') OR (data_type = 'ARRAY' AND udt_name IN ('_text', '_varchar')))`,
    );
    expect(textColumns.map((c) => c.column_name).sort()).toEqual(['allowed_domains', 'key_hash', 'key_prefix', 'name']);
    for (const { column_name: column } of textColumns) {
      const found = await rows(db, `SELECT id FROM api_keys WHERE strpos("${column}"::text, $1) > 0 OR strpos("${column}"::text, $2) > 0`, [keySecret, keySecret.slice(9)]);
      expect(found, column).toEqual([]);
    }
    expect(JSON.stringify(await snapshot(db))).not.toContain(keySecret.slice(3));

    const res = await t.app.inject({ method: 'GET', url: '/whoIAm', headers: { 'x-api-key': keySecret, origin: 'https://partner.ae' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.api_key).toMatchObject({ id: 42, name: 'Partner site', key_prefix: keySecret.slice(0, 9), price_vector: 5 });
  });

  it('applies sections in dependency order whatever their order in the bundle; references reach the bundle and the database', async () => {
    // Units first, the project they belong to after them, its file and area last.
    const reversed = {
      units: [{ id: 1411, project_id: 141, unit_number: 'R-1', plan_file_id: 1401 }],
      projects: [{ id: 141, company_id: DEV, name: 'Reverse Order', area_id: 141, image_file_ids: [1401] }],
      areas: [{ id: 141, name: 'Al Barsha', city: 'Dubai' }],
      files: [{ id: 1401, path: 'projects/141/cover.jpg' }],
    };
    await run(db, reversed);
    // A later bundle adds a unit to the stored project.
    await run(db, { units: [{ id: 1412, project_id: 141, unit_number: 'R-2' }] });
    expect((await detail(141)).units.map((u: { id: number }) => u.id)).toEqual([1411, 1412]);
    expect(await detail(141)).toMatchObject({ area_name: 'Al Barsha', logo: 'projects/141/cover.jpg' });
    // Neither in the bundle nor stored.
    await expectRefused(db, { units: [{ id: 1413, project_id: 142, unit_number: 'R-3' }] }, 'units[0].project_id: project 142 does not exist');
  });

  it('imports the same bundle twice to the same state and counts; only updated_at moves, and only where not given', async () => {
    const bundle = {
      files: [
        { id: 1501, path: 'projects/151/cover.jpg', mime_type: 'image/jpeg', created_at: TS, updated_at: TS },
        { id: 1502, path: 'companies/51/logo.png', mime_type: 'image/png', created_at: TS, updated_at: TS },
      ],
      areas: [
        { id: 151, name: 'Dubai Hills', city: 'Dubai' },
        { id: 152, name: 'Saadiyat', city: 'Abu Dhabi', created_at: TS, updated_at: TS },
      ],
      unit_tags: [{ id: 151, name: 'Garden' }],
      project_features: [{ id: 151, name: 'Padel Court', type: 2 }],
      companies: [
        { id: 50, company_type: 2, company_name: 'Twice Realty', licence_status: 'approved' },
        { id: 51, company_type: 3, company_name: 'Twice Developments', logo_file_id: 1502, created_at: TS, updated_at: TS },
      ],
      users: [
        { id: 500, name: 'Tia Twice', email: 'tia@twice.example' },
        { id: 501, name: 'Tom Twice', email: 'tom@twice.example', created_at: TS, updated_at: TS },
      ],
      company_members: [
        { company_id: 50, user_id: 500, role: 'ceo' },
        { company_id: 51, user_id: 501, role: 'broker', social_links: { whatsapp: '+971500000501' }, languages: ['English'] },
      ],
      contracts: [{ agency_id: 50, developer_id: 51, status: 'approved' }, { agency_id: AGENCY, developer_id: 51, status: 'approved' }],
      api_keys: [{ id: 50, company_id: 50, author_id: 500, name: 'Twice key', key: secret('records-twice'), allowed_domains: ['twice.ae'] }],
      projects: [
        {
          id: 151, company_id: 51, author_id: 501, area_id: 152, name: 'Twice Tower', latitude: -45, longitude: 100,
          payment_plans: [{ type: 1, percent: 30 }, { type: 3, percent: 70 }], image_file_ids: [1501], feature_ids: [151, 1],
          tours: ['https://tours.example.com/twice'], created_at: TS, updated_at: TS,
        },
      ],
      units: [
        { id: 1511, project_id: 151, unit_number: 'T-1', price: 800000, unit_area: 60, tag_ids: [151, 1] },
        { id: 1512, project_id: 151, unit_number: 'T-2', price: 950000, unit_area: 75, tag_ids: [2], created_at: TS, updated_at: TS },
      ],
      facilities: [
        facility('transport', 'TW-1', north(-45, 100, 800)),
        { ...facility('healthcare', 'TW-2', east(-45, 100, 2500)), created_at: TS, updated_at: TS },
      ],
      board_stages: [{ id: 50, company_id: 50, name: 'New', position: 0 }, { id: 51, company_id: 50, name: 'Won', position: 1 }],
      offer_statuses: [{ id: 50, name: 'Signed' }],
      clients: [{ id: 50, company_id: 50, first_name: 'Cal', email: 'cal@example.com', mobile_number: '+971 55 000 0050', property_types: [1, 2] }],
    };
    const expectedSummary = {
      files: 2, areas: 2, unit_tags: 1, project_features: 1, companies: 2, users: 2, company_members: 2, contracts: 2, api_keys: 1,
      projects: 1, units: 2, facilities: 2, board_stages: 2, offer_statuses: 1, clients: 1, facility_links: 2,
    };
    const stamps = () =>
      rows<{ row: string; created_at: string; updated_at: string }>(
        db,
        `SELECT 'area 151' AS row, created_at, updated_at FROM areas WHERE id = 151
         UNION ALL SELECT 'area 152', created_at, updated_at FROM areas WHERE id = 152
         UNION ALL SELECT 'unit 1511', created_at, updated_at FROM units WHERE id = 1511
         UNION ALL SELECT 'unit 1512', created_at, updated_at FROM units WHERE id = 1512
         UNION ALL SELECT 'company 50', created_at, updated_at FROM companies WHERE id = 50
         UNION ALL SELECT 'company 51', created_at, updated_at FROM companies WHERE id = 51
         ORDER BY 1`,
      );

    const given = ['area 152', 'company 51', 'unit 1512'];
    const started = Date.now();
    expect(await run(db, bundle)).toEqual(expectedSummary);
    const firstStamps = await stamps();
    for (const stamp of firstStamps.filter((s) => !given.includes(s.row))) {
      // Not given: the import time, on insert for both.
      expect(stamp.created_at).toBe(stamp.updated_at);
      expect(Math.abs(Date.parse(stamp.created_at) - started)).toBeLessThan(60_000);
    }
    expect(firstStamps.filter((s) => given.includes(s.row)).map((s) => [s.created_at, s.updated_at])).toEqual(given.map(() => [TS, TS]));
    const state = await snapshot(db, { withoutUpdatedAt: true });
    const shown = (await detail(151)) as Record<string, unknown>;
    const unitShown = (await get('/units/1512')).json();

    await new Promise((resolve) => setTimeout(resolve, 20));
    const [{ version: versionBefore }] = await rows<{ version: number }>(db, 'SELECT version FROM catalogue_state');
    expect(await run(db, bundle)).toEqual(expectedSummary);
    expect(await snapshot(db, { withoutUpdatedAt: true })).toEqual(state);
    expect(await rows(db, 'SELECT version FROM catalogue_state')).toEqual([{ version: versionBefore + 1 }]);
    const secondStamps = await stamps();
    for (const [index, stamp] of secondStamps.entries()) {
      const before = firstStamps[index];
      expect(stamp.created_at, stamp.row).toBe(before.created_at);
      if (given.includes(stamp.row)) expect(stamp.updated_at, stamp.row).toBe(TS);
      else expect(Date.parse(stamp.updated_at), stamp.row).toBeGreaterThan(Date.parse(before.updated_at));
    }
    expect(await detail(151)).toEqual(shown);
    expect((await get('/units/1512')).json()).toEqual(unitShown);
  });

  it('one transaction: an invalid last unit changes nothing, whatever came before it in the bundle', async () => {
    const bundle = {
      areas: [{ id: 161, name: 'Arjan', city: 'Dubai' }],
      projects: [{ id: 161, company_id: DEV, name: 'Never Stored', area_id: 161, latitude: 50, longitude: 0 }],
      units: [
        { id: 1611, project_id: 161, unit_number: 'N-1' },
        { id: 1612, project_id: 161, unit_number: 'N-2' },
        { id: 1613, project_id: 161, unit_number: 'N-3' },
        { id: 1614, project_id: 161, unit_number: 'N-4', status: 6 },
      ],
      facilities: [facility('transport', 'NS-1', north(50, 0, 500))],
    };
    await expectRefused(db, bundle, 'units[3].status: must be between 1 and 5');
    await expectRefused(db, { ...bundle, units: bundle.units.map((u, i) => (i === 3 ? { ...u, status: 5, project_id: 169 } : u)) }, 'units[3].project_id: project 169 does not exist');
  });

  it('one transaction: the database refusing the last unit rolls back the sections written before it', async () => {
    await run(db, {
      projects: [{ id: 171, company_id: DEV, name: 'Numbered', latitude: 50.5, longitude: 0 }],
      units: [
        { id: 1701, project_id: 171, unit_number: 'A-1' },
        { id: 1705, project_id: 171, unit_number: 'A-5' },
      ],
      facilities: [facility('transport', 'NU-1', north(50.5, 0, 1000))],
    });
    // A rule the importer's checks do not know: unit numbers unique within project 171.
    await rows(db, 'CREATE UNIQUE INDEX units_project_number ON units (project_id, unit_number) WHERE project_id = 171');
    try {
      // The areas and projects sections are written before the units statement fails.
      await expectRefused(
        db,
        {
          areas: [{ id: 171, name: 'Al Furjan', city: 'Dubai' }],
          projects: [{ id: 171, company_id: DEV, name: 'Renamed', area_id: 171, latitude: 50.5, longitude: 0.001 }],
          units: [
            { id: 1701, project_id: 171, unit_number: 'A-1', price: 1 },
            { id: 1702, project_id: 171, unit_number: 'A-2' },
            { id: 1703, project_id: 171, unit_number: 'A-3' },
            { id: 1704, project_id: 171, unit_number: 'A-5' },
          ],
        },
        'units[3].unit_number: duplicate key value violates unique constraint "units_project_number" (Key (project_id, unit_number)=(171, A-5) already exists.)',
      );
    } finally {
      await rows(db, 'DROP INDEX units_project_number');
    }
  });

  it('one transaction: a failure after the facility links rolls back the records and the links', async () => {
    await run(db, {
      projects: [{ id: 181, company_id: DEV, name: 'Linked', latitude: 51, longitude: 0 }],
      facilities: [facility('transport', 'LK-1', north(51, 0, 1000))],
    });
    const bundle = {
      areas: [{ id: 181, name: 'Meydan', city: 'Dubai' }],
      projects: [{ id: 181, company_id: DEV, name: 'Moved', area_id: 181, latitude: 51.01, longitude: 0 }],
      units: [{ id: 1811, project_id: 181, unit_number: 'L-1' }],
      facilities: [facility('retail', 'LK-2', north(51.01, 0, 300))],
    };
    const before = await snapshot(db);
    const failAfterLinks = (step: string) => {
      if (step === 'facility links') throw new Error('stopped after the facility links');
    };
    for (const relinkStrategy of ['incremental', 'rebuild'] as const) {
      await expect(run(db, bundle, { onProgress: failAfterLinks, relinkStrategy })).rejects.toThrow('stopped after the facility links');
      expect(await snapshot(db)).toEqual(before);
    }
    expect(sourceIds(await linksOf(db, 181))).toEqual(['LK-1']);
    // The same bundle, let through, does change the records and the links.
    await run(db, bundle);
    expect(sourceIds(await linksOf(db, 181))).toEqual(['LK-1', 'LK-2']);
    expect(await rows(db, 'SELECT name, area_id FROM projects WHERE id = 181')).toEqual([{ name: 'Moved', area_id: 181 }]);
  });

  it('facilities: data stored exactly as given; coordinates from the category\u2019s own fields, numeric strings too, invalid ones none', async () => {
    const at: [number, number] = [-10, 30];
    const school = {
      name: 'Al Noor School', name_ar: 'مدرسة النور', curriculum: ['British', 'IB'], ratings: { khda: 'Good', year: 2025 },
      fees_aed: 45000.5, is_public: false, closed_on: null, source_id: 'KHDA-77', asset_latitude: -10.005, asset_longitude: 30.001,
    };
    const cases: { record: { category: string; source_id: string | number; data: Record<string, unknown> }; coordinates: [number, number] | null }[] = [
      { record: { category: 'airports_ports', source_id: 'AP-OK', data: { name: 'Port', latitude: -10.004, longitude: 30 } }, coordinates: [-10.004, 30] },
      { record: { category: 'airports_ports', source_id: 'AP-ASSET', data: { name: 'Port', asset_latitude: -10.004, asset_longitude: 30 } }, coordinates: null },
      { record: { category: 'education', source_id: 77, data: school }, coordinates: [-10.005, 30.001] },
      { record: { category: 'education', source_id: 'ED-LATLON', data: { latitude: -10.005, longitude: 30 } }, coordinates: null },
      { record: { category: 'healthcare', source_id: 'HC-TEXT', data: { asset_latitude: '-10.006', asset_longitude: ' 30.002 ' } }, coordinates: [-10.006, 30.002] },
      { record: { category: 'employment', source_id: 'EM-EDGE', data: { asset_latitude: -10.007, asset_longitude: '30' } }, coordinates: [-10.007, 30] },
      { record: { category: 'lifestyle', source_id: 'LS-LAT91', data: { asset_latitude: 91, asset_longitude: 30 } }, coordinates: null },
      { record: { category: 'tourism', source_id: 'TO-LON181', data: { asset_latitude: -10, asset_longitude: 181 } }, coordinates: null },
      { record: { category: 'retail', source_id: 'RE-HALF', data: { asset_latitude: -10.003 } }, coordinates: null },
      { record: { category: 'transport', source_id: 'TR-TEXT', data: { asset_latitude: 'n/a', asset_longitude: '30' } }, coordinates: null },
      { record: { category: 'transport', source_id: 'TR-HEX', data: { asset_latitude: -10.001, asset_longitude: '0x1E' } }, coordinates: null },
      { record: { category: 'transport', source_id: 'TR-EMPTY', data: { asset_latitude: '', asset_longitude: '' } }, coordinates: null },
      { record: { category: 'transport', source_id: 'TR-BOOL', data: { asset_latitude: true, asset_longitude: 30 } }, coordinates: null },
    ];
    await run(db, {
      projects: [{ id: 191, company_id: DEV, name: 'Facility Row', latitude: at[0], longitude: at[1] }],
      facilities: cases.map((c) => c.record),
    });
    const stored = await rows<{ category: string; source_id: string; data: unknown; latitude: number | null; longitude: number | null }>(
      db,
      `SELECT category, source_id, data, latitude, longitude FROM facilities WHERE latitude IS NULL OR latitude BETWEEN -11 AND -9
        ORDER BY category, source_id`,
    );
    const expected = cases
      .map(({ record, coordinates }) => ({
        category: record.category, source_id: String(record.source_id), data: record.data,
        latitude: coordinates?.[0] ?? null, longitude: coordinates?.[1] ?? null,
      }))
      .sort((a, b) => (a.category + a.source_id < b.category + b.source_id ? -1 : 1));
    expect(stored.filter((row) => expected.some((e) => e.category === row.category && e.source_id === row.source_id))).toEqual(expected);

    // Only the facilities with coordinates are linked, all of them within a kilometre here.
    const links = await linksOf(db, 191);
    expect(sourceIds(links)).toEqual(['77', 'AP-OK', 'EM-EDGE', 'HC-TEXT']);
    for (const link of links) {
      const { coordinates } = cases.find((c) => String(c.record.source_id) === link.source_id)!;
      expect(link.distance_m).toBeCloseTo(haversineM(...at, ...coordinates!), 3);
    }

    // Served as the source record, with its own source_id when it has one, the facility's otherwise.
    const nearby = (await detail(191)).nearby_facilities;
    expect(nearby.education).toEqual([{ distance: expect.closeTo(haversineM(...at, -10.005, 30.001), 3), facility: school }]);
    expect(nearby.healthcare).toEqual([{ distance: expect.any(Number), facility: { source_id: 'HC-TEXT', asset_latitude: '-10.006', asset_longitude: ' 30.002 ' } }]);
    expect(nearby.transport).toEqual([]);
  });

  it('links every facility within the radius with its great-circle distance, and none beyond', async () => {
    const at: [number, number] = [40, 20];
    const southWest: [number, number] = [39.97, 19.95];
    await run(db, {
      projects: [{ id: 201, company_id: DEV, name: 'Radius Point', latitude: at[0], longitude: at[1] }],
      facilities: [
        facility('transport', 'N-1KM', north(...at, 1000)),
        facility('retail', 'E-1KM', east(...at, 1000)),
        facility('airports_ports', 'N-IN', north(...at, RADIUS_M - 0.5)),
        facility('education', 'N-OUT', north(...at, RADIUS_M + 0.5)),
        facility('healthcare', 'E-IN', east(...at, RADIUS_M - 0.5)),
        facility('healthcare', 'E-OUT', east(...at, RADIUS_M + 0.5)),
        facility('lifestyle', 'SW', southWest),
      ],
    });
    const links = await linksOf(db, 201);
    expect(links.map(({ source_id, category }) => [source_id, category])).toEqual([
      ['E-1KM', 'retail'],
      ['E-IN', 'healthcare'],
      ['N-1KM', 'transport'],
      ['N-IN', 'airports_ports'],
      ['SW', 'lifestyle'],
    ]);
    const distance = Object.fromEntries(links.map((link) => [link.source_id, link.distance_m]));
    expect(distance['N-1KM']).toBeCloseTo(1000, 3);
    expect(distance['E-1KM']).toBeCloseTo(1000, 3);
    expect(distance['N-IN']).toBeCloseTo(RADIUS_M - 0.5, 3);
    expect(distance['E-IN']).toBeCloseTo(RADIUS_M - 0.5, 3);
    expect(distance.SW).toBeCloseTo(haversineM(...at, ...southWest), 3);
    expect(haversineM(...at, ...southWest)).toBeGreaterThan(5000);

    const transport = (await detail(201)).nearby_facilities.transport;
    expect(transport).toEqual([{ distance: expect.closeTo(1000, 3), facility: { source_id: 'N-1KM', name: 'transport N-1KM', asset_latitude: north(...at, 1000)[0], asset_longitude: 20 } }]);
  });

  it('links across the antimeridian and over a pole', async () => {
    const dateLine: [number, number] = [-30, 179.998];
    const pole: [number, number] = [89.99, 45];
    const summary = await run(db, {
      projects: [
        { id: 211, company_id: DEV, name: 'Date Line', latitude: dateLine[0], longitude: dateLine[1] },
        { id: 212, company_id: DEV, name: 'North Pole', latitude: pole[0], longitude: pole[1] },
      ],
      facilities: [
        facility('tourism', 'DL-WEST', [-30, -179.998]),
        facility('tourism', 'DL-FAR', [-30, -179.8]),
        facility('tourism', 'POLE-OPPOSITE', [89.99, -135]),
      ],
    });
    expect(summary.facility_links).toBe(2);
    expect(await linksOf(db, 211)).toEqual([{ source_id: 'DL-WEST', category: 'tourism', distance_m: expect.closeTo(haversineM(...dateLine, -30, -179.998), 3) }]);
    expect(await linksOf(db, 212)).toEqual([{ source_id: 'POLE-OPPOSITE', category: 'tourism', distance_m: expect.closeTo(EARTH_RADIUS_M * radians(0.02), 3) }]);
  });

  it('uses the radius it is given', async () => {
    const at: [number, number] = [42, 20];
    const bundle = {
      projects: [{ id: 221, company_id: DEV, name: 'Small Radius', latitude: at[0], longitude: at[1] }],
      facilities: [facility('retail', 'R-1000', north(...at, 1000)), facility('retail', 'R-2000', north(...at, 2000))],
    };
    expect((await run(db, bundle, { facilityLinkRadiusM: 1500 })).facility_links).toBe(1);
    expect(sourceIds(await linksOf(db, 221))).toEqual(['R-1000']);
    expect((await run(db, bundle)).facility_links).toBe(2);
    expect(sourceIds(await linksOf(db, 221))).toEqual(['R-1000', 'R-2000']);
  });

  it('moving a project or a facility in a later import moves its links; a project without coordinates has none', async () => {
    const project = (coordinates: [number, number] | null) => ({
      id: 231, company_id: DEV, name: 'Wandering', ...(coordinates ? { latitude: coordinates[0], longitude: coordinates[1] } : {}),
    });
    await run(db, {
      projects: [project([45, 10]), { id: 232, company_id: DEV, name: 'Nowhere' }],
      facilities: [facility('retail', 'MV-A', [45.01, 10]), facility('retail', 'MV-B', [45.5, 10])],
    });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A']);

    // A bundle touching neither keeps the links.
    await run(db, { areas: [{ id: 231, name: 'Unrelated', city: 'Dubai' }] });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A']);

    await run(db, { projects: [project([45.49, 10])] });
    expect(await linksOf(db, 231)).toEqual([{ source_id: 'MV-B', category: 'retail', distance_m: expect.closeTo(haversineM(45.49, 10, 45.5, 10), 3) }]);

    // Facilities alone: the stored project is relinked to them.
    await run(db, { facilities: [facility('retail', 'MV-A', [45.495, 10])] });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A', 'MV-B']);
    await run(db, { facilities: [facility('retail', 'MV-B', [46, 10])] });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A']);
    await run(db, { facilities: [{ category: 'retail', source_id: 'MV-A', data: { name: 'lost', asset_latitude: 'unknown', asset_longitude: 10 } }] });
    expect(await linksOf(db, 231)).toEqual([]);

    await run(db, { facilities: [facility('retail', 'MV-A', [45.495, 10])] });
    expect(sourceIds(await linksOf(db, 231))).toEqual(['MV-A']);
    await run(db, { projects: [project(null)] });
    expect(await linksOf(db, 231)).toEqual([]);
    expect(await linksOf(db, 232)).toEqual([]);
    expect(Object.values((await detail(231)).nearby_facilities)).toEqual(Array(8).fill([]));
  });
});
