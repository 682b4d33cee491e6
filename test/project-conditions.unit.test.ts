import { Kysely, PostgresDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../src/db/schema.js';
import { parseProjectsQuery } from '../src/contract/projects-query.js';
import type { ProjectsQuery as ProjectsQueryInput } from '../src/contract/schemas/projects.js';
import { projectFilterConditions } from '../src/queries/projects-sql-reference.js';

/*
 * Which filters of GET /projects reach the units table. The unit summary (migration 0006) answers
 * `bedrooms` with at most one price bound on the listing index; results alone would not notice if it
 * stopped doing so (the EXISTS over units gives the same answer, only slower), so the SQL is checked.
 */
const compiler = new Kysely<DB>({ dialect: new PostgresDialect({ pool: {} as never }) });

function filterSql(query: ProjectsQueryInput): string {
  const conditions = projectFilterConditions(parseProjectsQuery(query).filters, 0, { amenitiesRadiusM: undefined });
  return conditions.length === 0 ? '' : sql.join(conditions, sql` AND `).compile(compiler).sql;
}

describe('unit filters of GET /projects', () => {
  it.each<[string, ProjectsQueryInput]>([
    ['bedrooms', { bedrooms: '2' }],
    ['bedrooms with 5+', { bedrooms: '0,5' }],
    ['bedrooms + price_max', { bedrooms: '2', price_max: 3_000_000 }],
    ['bedrooms + price_min', { bedrooms: '1,2', price_min: 500_000 }],
    ['price_max alone', { price_max: 3_000_000 }],
    ['with project filters', { bedrooms: '3', price_max: 3_000_000, is_branded: true, near_transport: true }],
  ])('%s: answered from the unit summary, never reading units', (_, query) => {
    const text = filterSql(query);
    expect(text).toContain('unit_bedroom_mask');
    expect(text).not.toMatch(/\bunits\b/);
  });

  it.each<[string, ProjectsQueryInput]>([
    ['both price bounds', { bedrooms: '2', price_min: 1, price_max: 3_000_000 }],
    ['statuses', { statuses: '2' }],
    ['size', { bedrooms: '2', size_min: 80 }],
    ['per-area price', { price_per_m2_max: 20_000 }],
    ['parking', { parking_min: 1 }],
    ['unit tags', { unit_preference_ids: '13', price_max: 3_000_000 }],
  ])('%s: the unit EXISTS, with the summary as a pre-test', (_, query) => {
    const text = filterSql(query);
    expect(text).toContain('unit_bedroom_mask');
    expect(text).toMatch(/EXISTS \(SELECT 1 FROM units u WHERE .* OFFSET 0\)/s);
  });

  it('without unit filters neither the summary nor units', () => {
    expect(filterSql({ is_branded: true })).not.toMatch(/unit_bedroom_mask|\bunits\b/);
  });
});
