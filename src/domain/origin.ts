/*
 * Domain restriction of an API key: the host of Origin (or of Referer when Origin is absent) must equal
 * one listed domain exactly. No wildcard, no subdomain coverage, and no header at all is a refusal.
 * The host is taken from a real URL parse, so userinfo (`https://agency.ae@evil.com`), ports and
 * look-alike suffixes (`agency.ae.evil.com`) cannot pass for a listed domain.
 */
export function requestHost(origin: string | undefined, referer: string | undefined): string | undefined {
  const source = origin?.trim() || referer?.trim();
  if (!source || source === 'null') return undefined;
  try {
    const url = new URL(source);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

export function normaliseDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, '');
}

export function isOriginAllowed(allowedDomains: readonly string[] | null, origin: string | undefined, referer: string | undefined): boolean {
  if (!allowedDomains || allowedDomains.length === 0) return true;
  const host = requestHost(origin, referer);
  if (!host) return false;
  return allowedDomains.some((domain) => normaliseDomain(domain) === host);
}
