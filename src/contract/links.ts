/*
 * File links. The service never serves files: a link is STATIC_BASE_URL followed by the stored path,
 * or the bare path when no base is configured.
 */
export type LinkBuilder = (path: string | null | undefined) => string | null;

export function linkBuilder(staticBaseUrl: string | undefined): LinkBuilder {
  if (!staticBaseUrl) return (path) => path ?? null;
  const base = staticBaseUrl.replace(/\/+$/, '');
  return (path) => (path == null ? null : `${base}/${path.replace(/^\/+/, '')}`);
}
