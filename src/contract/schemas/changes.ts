import { Type, type Static } from '@sinclair/typebox';

/* GET /changes: what changed for the key since a cursor (src/queries/changes.ts). */

export const DEFAULT_CHANGES_LIMIT = 100;
export const MAX_CHANGES_LIMIT = 1000;

export const ChangesQuery = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          'Opaque: the `next_cursor` of the previous page, sent back as it is. Absent: start from the beginning (everything the key ' +
          'sees now, as upserts).',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: DEFAULT_CHANGES_LIMIT,
        description: `Entries per page, default ${DEFAULT_CHANGES_LIMIT}, at least 1; values above ${MAX_CHANGES_LIMIT} are capped at ${MAX_CHANGES_LIMIT}.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ChangesQuery = Static<typeof ChangesQuery>;

export const ChangeEntry = Type.Object(
  {
    type: Type.Union([Type.Literal('project'), Type.Literal('unit')], { description: 'What changed: a project or a unit.' }),
    id: Type.Integer({ description: 'The project\u2019s or unit\u2019s id.' }),
    project_id: Type.Optional(Type.Integer({ description: 'Units only: the project the unit belongs to now.' })),
    change: Type.Union([Type.Literal('upsert'), Type.Literal('removed')], {
      description:
        '`upsert`: visible to the key now, new or changed: fetch it (GET /projects/{id} or /units/{id}). `removed`: no longer visible ' +
        '(deleted, turned draft, contract ended, developer removed): drop it; a removed project takes its units with it. ' +
        'Only records the key could see at the cursor\u2019s position are named (never a draft, a project of a developer without an approved contract, or a unit created and deleted since).',
    }),
    changed_at: Type.String({ format: 'date-time', description: 'When the change that lists the entry was made (its transaction\u2019s time, UTC).' }),
  },
  { description: 'One project or unit that changed for the key.' },
);
export type ChangeEntry = Static<typeof ChangeEntry>;

export const ChangesPage = Type.Object({
  items: Type.Array(ChangeEntry, {
    description: 'Changes in the order they were committed (projects before units of the same change, then by id); at most `limit`.',
  }),
  next_cursor: Type.String({
    description: 'Send it as `cursor` to get what follows, now or later: even when `has_more` is false it is where the next changes will start.',
  }),
  has_more: Type.Boolean({ description: 'More entries are waiting: ask for the next page at once. False: the feed is exhausted for now.' }),
  catalogue_version: Type.Integer({
    format: 'int64',
    description: 'The catalogue version (as in GET /health) the page was read at; once `has_more` is false, every change up to it has been listed.',
  }),
});
export type ChangesPage = Static<typeof ChangesPage>;
