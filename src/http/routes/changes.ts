import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readPrimaryFirst } from '../../db/database.js';
import { catalogueStartOverReason, decodeCursor, keyStartOverReason } from '../../domain/changes-cursor.js';
import { messages } from '../../domain/error-catalogue.js';
import { changesPage, readChanges } from '../../queries/changes.js';
import type { AppDeps } from '../deps.js';
import { gone } from '../errors.js';
import { ChangesPage, ChangesQuery, MAX_CHANGES_LIMIT, DEFAULT_CHANGES_LIMIT } from '../../contract/schemas/changes.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';

export const changesRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { database, search }) => {
  app.get(
    '/changes',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'listChanges',
        summary: 'Changes feed (for mirroring)',
        description:
          'An addition to the specification, for agencies that mirror the catalogue: the projects and units that changed for this key ' +
          'since `cursor`, in commit order. Start without a cursor (every project and unit the key sees now, as `upsert`), follow ' +
          '`next_cursor` while `has_more`, then keep the last `next_cursor` and call again later for what changed meanwhile. A change ' +
          'committed after a page was read is never skipped, even while imports run; an entity that changes again is listed again. ' +
          'For each `upsert` fetch GET /projects/{id} or GET /units/{id} (prices in the key\u2019s prices); a `removed` project takes its ' +
          'units with it. An entry may be listed although nothing the key sees changed (e.g. a record restated with a new `updated_at`). ' +
          'Answered 410 `cursor expired: start over without a cursor` when the cursor cannot be continued: issued to another key, ' +
          'the key\u2019s price vector changed since (every price changed), or the catalogue was restored or replaced. Then drop the ' +
          'mirror and start again without a cursor. Not covered: project contacts (GET /projects/{id}/contacts).',
        querystring: ChangesQuery,
        response: responses({ 200: Success(ChangesPage, 'One page of changes and the cursor that follows it.') }, [410], {
          400: 'Invalid request: the message names the parameter (`cursor is not valid: ...` for a cursor that was not issued by this service, or was altered).',
          410: '`cursor expired: start over without a cursor`: the cursor belongs to another key, the key\u2019s price vector changed, or the catalogue was restored or replaced. Start again without a cursor.',
        }),
      },
    },
    async (request) => {
      const key = request.auth;
      // A cursor this service did not issue throws CursorError: 400 (src/domain/error-catalogue.ts).
      const cursor = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor);
      if (cursor && keyStartOverReason(cursor, key)) throw gone(messages.cursorExpired);
      const feedRequest = { agencyId: key.company.id, cursor, limit: Math.min(request.query.limit ?? DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT) };
      // On the primary: a replica behind the client's last page would answer "start over".
      const read = await readPrimaryFirst(database, (db) => readChanges(db, feedRequest));
      if (cursor && catalogueStartOverReason(cursor, { version: read.catalogueVersion, horizon: read.horizon })) throw gone(messages.cursorExpired);
      // The details served from memory (GET /units/{id}) hold what this page lists before it is answered.
      await search.atLeast(read.catalogueVersion);
      return ok(changesPage(read, feedRequest, key));
    },
  );
};
