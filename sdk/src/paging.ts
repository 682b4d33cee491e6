/**
 * Walks a paged collection: fetches the page at `start`, yields it, asks `next` where the following
 * page starts, and stops when `next` says there is none. Offset paging (GET /projects) and cursor
 * paging are both this loop with a different `next`.
 */
export async function* pages<Page, Position>(
  start: Position,
  fetchPage: (position: Position) => Promise<Page>,
  next: (page: Page, position: Position) => Position | undefined,
): AsyncGenerator<Page, void, undefined> {
  let position: Position | undefined = start;
  while (position !== undefined) {
    const page = await fetchPage(position);
    yield page;
    position = next(page, position);
  }
}

/**
 * Offset paging as GET /projects does it: the next page starts after the items received, and there
 * is none once offset + items >= total (or a page comes back empty, which ends the walk even if
 * `total` grew meanwhile).
 */
export function nextOffset(page: { total: number; items: readonly unknown[] }, offset: number): number | undefined {
  const after = offset + page.items.length;
  return page.items.length === 0 || after >= page.total ? undefined : after;
}

/**
 * Cursor paging as GET /changes does it: the next page starts at the page's `next_cursor` while
 * `has_more`; the last page's `next_cursor` is where to resume later, for what changes meanwhile.
 * (A position is `{ cursor }`, so that "no cursor yet", the start of the feed, is a position too.)
 */
export function nextCursor(page: { next_cursor: string; has_more: boolean }): { cursor: string } | undefined {
  return page.has_more ? { cursor: page.next_cursor } : undefined;
}
