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

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/**
 * What is wrong with an entry of a key's domain list, or undefined: after normaliseDomain it must be a
 * bare host (`www.agency.ae`), the only form that can ever equal a request's host. A URL, a port, a path
 * or a wildcard would never match and lock the key out of every page. The one rule for every door that
 * sets a domain list (the key CLI and the bundle importer).
 */
export function domainProblem(domain: string): string | undefined {
  return HOST_NAME.test(normaliseDomain(domain)) ? undefined : `"${domain}" is not a domain name (give hosts only, e.g. www.agency.ae)`;
}

export function isOriginAllowed(allowedDomains: readonly string[] | null, origin: string | undefined, referer: string | undefined): boolean {
  if (!allowedDomains || allowedDomains.length === 0) return true;
  const host = requestHost(origin, referer);
  if (!host) return false;
  return allowedDomains.some((domain) => normaliseDomain(domain) === host);
}
