import { Value } from '@sinclair/typebox/value';
import Fastify from 'fastify';
import { DEMO_AGENCY_ID, DEMO_AUTHOR_ID } from '../../src/demo/demo-bundle.js';
import { hashApiKey } from '../../src/domain/api-key.js';
import { displayCurrency } from '../../src/domain/currency.js';
import { parseProjectsQuery } from '../../src/contract/projects-query.js';
import type { LinkBuilder } from '../../src/contract/links.js';
import { toProjectListItem } from '../../src/contract/presenters/projects.js';
import { ok, Success } from '../../src/contract/schemas/envelope.js';
import { ProjectsPageSchema, ProjectsQuery } from '../../src/contract/schemas/projects.js';
import { findActiveKeyByHash, type KeyRecord } from '../../src/queries/api-keys.js';
import { listProjects } from '../../src/queries/projects-sql-reference.js';
import type { TestApp } from './app.js';
import type { Query } from './project-scenarios.js';

/*
 * What the differential tests of GET /projects compare the in-memory search with: the SQL reference's
 * rows (src/queries/projects-sql-reference.ts) through the route's presenter and its response schema's
 * serializer, as text (the bytes the route sent when it served them), and the keys to ask with.
 */

export interface KeyWithRecord {
  secret: string;
  record: KeyRecord;
}

/** A key of the agency per price vector, issued on first use, with its record (the scope the SQL reference takes). */
export function keysByPriceVector(t: TestApp, agency = { id: DEMO_AGENCY_ID, author: DEMO_AUTHOR_ID }): (priceVector: number) => Promise<KeyWithRecord> {
  const keys = new Map<number, Promise<KeyWithRecord>>();
  return (priceVector) => {
    let key = keys.get(priceVector);
    if (!key) {
      key = t.key({ companyId: agency.id, authorId: agency.author, priceVector }).then(async (secret) => ({ secret, record: (await findActiveKeyByHash(t.db, hashApiKey(secret)))! }));
      keys.set(priceVector, key);
    }
    return key;
  };
}

export interface SqlReferenceBodies {
  /** The body of GET /projects?query for the key, from the SQL reference; `amenitiesRadiusM` as AMENITIEST_RADIUS. */
  body(query: Query, record: KeyRecord, amenitiesRadiusM?: number): Promise<string>;
  close(): Promise<void>;
}

export async function sqlReferenceBodies(t: TestApp, links: LinkBuilder): Promise<SqlReferenceBodies> {
  let serializing: unknown;
  const serializer = Fastify();
  serializer.get('/', { schema: { response: { 200: Success(ProjectsPageSchema, 'the route schema') } } }, async () => serializing);
  await serializer.ready();
  return {
    async body(query, record, amenitiesRadiusM) {
      const page = parseProjectsQuery(Value.Convert(ProjectsQuery, Value.Default(ProjectsQuery, { ...query })) as never);
      const scope = query.currency === undefined ? record : { ...record, display: displayCurrency(query.currency) };
      const { total, items } = await listProjects(t.db, scope, page, { amenitiesRadiusM });
      serializing = ok({ total, items: items.map((row) => toProjectListItem(row, links)) });
      return (await serializer.inject({ method: 'GET', url: '/' })).body;
    },
    close: () => serializer.close(),
  };
}
