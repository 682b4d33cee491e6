import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/database.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import type { ProjectsQuery } from '../src/contract/schemas/projects.js';
import { linkBuilder } from '../src/contract/links.js';
import { findActiveKeyByHash } from '../src/queries/api-keys.js';
import { findProjects } from '../src/search/find-projects.js';
import { RESULT_CACHE_ENTRIES } from '../src/search/result-cache.js';
import { SearchModel } from '../src/search/search-model.js';
import { flatListJson } from '../src/search/visibility.js';
import { starAround, viewportAround } from '../bench/scenarios.js';
import { everyFilterQuery } from '../bench/fixtures.js';
import { Value } from '@sinclair/typebox/value';
import { ProjectsQuery as ProjectsQuerySchema } from '../src/contract/schemas/projects.js';
import { unitJson, visibleUnitIndex } from '../src/search/find-unit.js';
import { nearbyBlock } from '../src/search/project-nearby.js';
import { buildUnitDetails, unitDetailsBytes, type UnitDetails } from '../src/search/unit-details.js';
import { readUnitPageRows } from '../src/queries/unit-details.js';

/*
 * What the in-memory search costs on a loaded catalogue: build time, extra memory, and the CPU time of
 * a few searches and unit answers without HTTP around them, and the memory of the result cache when full.
 *
 *   node --expose-gc --import tsx scripts/search-model-size.ts [--database-url URL | --data-dir DIR] [--builds 3] [--nearby-in-memory]
 *
 * --nearby-in-memory: the snapshot keeps GET /projects/{id}'s nearby block too (NEARBY_IN_MEMORY=true).
 *
 * Memory is the V8 heap plus array buffers after a full GC, with the model held, minus the same before
 * it was built (the database driver's own memory is in both). Searches use every developer as
 * contracted and a price vector of +1.1 %, as the bench's markup key does.
 */

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string', default: process.env.DATABASE_URL },
    'data-dir': { type: 'string', default: process.env.DATA_DIR },
    builds: { type: 'string', default: '3' },
    'nearby-in-memory': { type: 'boolean', default: false },
  },
});

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function usedBytes(): number {
  gc!();
  gc!();
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.arrayBuffers;
}

/** A query string read as the route reads it (its schema's conversions), refused if the schema refuses it. */
function queryFrom(text: string): ProjectsQuery {
  const query = Value.Convert(ProjectsQuerySchema, Object.fromEntries(new URLSearchParams(text)));
  if (!Value.Check(ProjectsQuerySchema, query)) throw new Error(`not a valid search: ${text}`);
  return query;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const database = await openDatabase({ databaseUrl: values['database-url'], dataDir: values['data-dir'] });
try {
  const developerIds = (await database.db.selectFrom('companies').where('company_type', '=', 3).select('id').execute()).map((row) => row.id);
  void findActiveKeyByHash;
  const before = usedBytes();
  const builds: number[] = [];
  const stages: string[] = [];
  const links = linkBuilder(undefined);
  let model = await SearchModel.create(database.db, { links, nearbyInMemory: values['nearby-in-memory'], concurrentReads: database.driver === 'postgres' });
  builds.push(model.current().buildMs);
  const held = usedBytes() - before;
  for (let i = 1; i < Number(values.builds); i++) {
    await model.refresh();
    builds.push(model.current().buildMs);
    stages.push(Object.entries(model.current().buildStages).map(([name, ms]) => `${name} ${ms.toFixed(0)}`).join(', '));
  }
  const snapshot = model.current();
  console.log(`driver ${database.driver}: ${snapshot.projects.count} projects, ${snapshot.units.count} units`);
  console.log(`build: ${builds.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`);
  for (const line of stages) console.log(`  stages (ms): ${line}`);
  console.log(`memory held by the model: ${mb(held)} (heap + array buffers after GC)`);

  const scope = { contracted_developer_ids: developerIds, price_vector: 1.1 };
  const queries: Record<string, ProjectsQuery> = {
    'no filter': {},
    typical: { bedrooms: '2', price_max: 3_000_000, near_transport: true },
    'typical, sort=-price_from': { bedrooms: '2', price_max: 3_000_000, near_transport: true, sort: '-price_from' },
    'typical, all facets': { bedrooms: '2', price_max: 3_000_000, near_transport: true, facets: 'bedrooms,statuses,development_status,developer,unit_types,area,is_branded,is_resale,is_escrow' },
    'unit tag + price': { unit_preference_ids: '1', price_min: 1_000_000, price_max: 2_000_000 },
    'price per m2': { price_per_m2_min: 10_000, price_per_m2_max: 20_000 },
    search: { search: 'tower' },
    'deep offset': { offset: 4000 },
    // Map search (issue 24): a 12 x 11 km viewport and a concave 50-vertex star in central Dubai, with the typical filters.
    'bbox + typical': { bbox: viewportAround(25.2, 55.27), bedrooms: '2', price_max: 3_000_000, near_transport: true },
    'polygon + typical': { polygon: starAround(25.2, 55.27), bedrooms: '2', price_max: 3_000_000, near_transport: true },
    'typical, match=true': { bedrooms: '2', price_max: 3_000_000, near_transport: true, match: true },
    // The bench's projects-worst: every filter at once, anchored on one project (bench/fixtures.ts).
    'every filter': queryFrom(await everyFilterQuery(database.db, developerIds)),
  };
  for (const [name, query] of Object.entries(queries)) {
    const page = parseProjectsQuery(query);
    const context = { amenitiesRadiusM: undefined };
    let total = 0;
    // The full pass (the result cache off: what a search seen for the first time costs), then the same
    // search from the snapshot's result cache (asked again, any page).
    const timed = (cache: boolean) => {
      for (let i = 0; i < 300; i++) total = findProjects(snapshot, scope, page, context, { cache }).total;
      const runs = 300;
      // CPU time of this process, not wall time: on a machine shared with other work the wait for a
      // core is not the search's cost.
      const started = process.cpuUsage();
      for (let i = 0; i < runs; i++) findProjects(snapshot, scope, page, context, { cache });
      const used = process.cpuUsage(started);
      return ((used.user + used.system) / 1000 / runs).toFixed(3);
    };
    const pass = timed(false);
    const cached = timed(true);
    console.log(`${name}: ${pass} ms CPU per search, ${cached} ms from the result cache (total ${total})`);
  }
  // The result cache full: as many different searches as it keeps (the typical one with facets and
  // every price_max from 3,000,000 up), measured as the model was: heap and array buffers after GC.
  const empty = usedBytes();
  const typical = { bedrooms: '2', near_transport: true, facets: 'bedrooms,statuses,development_status,developer,unit_types,area' };
  for (let k = 0; snapshot.results.size < RESULT_CACHE_ENTRIES && k < 10 * RESULT_CACHE_ENTRIES; k++) {
    // Asked twice: a result is kept from its second sighting on.
    const page = parseProjectsQuery({ ...typical, price_max: 3_000_000 + k });
    for (let ask = 0; ask < 2; ask++) findProjects(snapshot, scope, page, { amenitiesRadiusM: undefined });
  }
  console.log(`result cache: ${snapshot.results.size} searches held, ${mb(usedBytes() - empty)} (heap + array buffers after GC)`);

  // GET /units/{id}'s pages (src/search/unit-details.ts): made per project when a unit of it is first
  // asked (read with SQL, then built), then each answer is joined from the page. Timed apart.
  const { units: unitColumns, projects: projectColumns } = snapshot;
  const units = Array.from({ length: 2_000 }, (_, i) => Math.floor((i * unitColumns.count) / 2_000));
  const pages = new Map<number, UnitDetails>();
  let pageBytes = 0;
  const readBegun = performance.now();
  for (const k of units) {
    const projectId = projectColumns.id[unitColumns.project[k]];
    if (pages.has(projectId)) continue;
    const page = buildUnitDetails((await readUnitPageRows(database.db, [projectId])).get(projectId)!, links)!;
    pages.set(projectId, page);
    pageBytes += unitDetailsBytes(page);
  }
  console.log(
    `unit pages: ${pages.size} projects read and built in ${((performance.now() - readBegun) / pages.size).toFixed(2)} ms each (SQL included), ` +
      `${(pageBytes / pages.size / 1024).toFixed(1)} KB each`,
  );
  for (const fields of [undefined, new Set(['id', 'unit_number', 'price', 'plan_file'])]) {
    let size = 0;
    const timeUnits = () => {
      const begun = performance.now();
      for (const k of units) {
        const unitId = unitColumns.id[k];
        const found = visibleUnitIndex(snapshot, scope, unitId);
        if (found >= 0) size += unitJson(snapshot, pages.get(projectColumns.id[unitColumns.project[found]])!, found, scope, fields).length;
      }
      return (((performance.now() - begun) / units.length) * 1000).toFixed(1);
    };
    timeUnits();
    console.log(`unit answer${fields ? ` (fields=${[...fields].join(',')})` : ''}: ${timeUnits()} µs each (${units.length} units, ${Math.round(size / 2 / units.length)} characters on average)`);
  }

  // GET /projects/{id}'s nearby block (src/search/project-nearby.ts): facility texts (UTF-8 bytes) and
  // the links' typed arrays, and the time to write the full block of a project from them.
  const nearby = snapshot.nearby;
  if (nearby) {
  const nearbyBytes = Object.values(nearby).reduce((sum: number, value) => sum + (ArrayBuffer.isView(value) ? value.byteLength : 0), 0);
  console.log(`project nearby: ${mb(nearbyBytes)} (facility texts ${mb(nearby.full.length)} full, ${mb(nearby.summary.length)} summary; ${nearby.facility.length} links)`);
  const projectSample = Array.from({ length: 200 }, (_, i) => Math.floor((i * snapshot.projects.count) / 200));
  for (const form of ['full', 'summary'] as const) {
    let bytes = 0;
    const begun = performance.now();
    for (const p of projectSample) bytes += nearbyBlock(nearby, p, { amenitiesRadiusM: undefined, form }).length;
    console.log(`nearby block (${form}): ${(((performance.now() - begun) / projectSample.length) * 1000).toFixed(0)} µs each (${projectSample.length} projects, ${Math.round(bytes / projectSample.length)} bytes on average)`);
  }
  }

  const started = performance.now();
  const list = flatListJson(snapshot, developerIds);
  console.log(`/projects/list items: ${(performance.now() - started).toFixed(1)} ms first time, ${list.length} characters`);
  model = undefined as never;
} finally {
  await database.close();
}
