import ipaddr from 'ipaddr.js';

/*
 * Where a webhook may be sent. Only `https` URLs, and never to an address the service's own network
 * reaches but the internet does not: loopback, private (RFC 1918, unique local), link-local (which
 * holds the cloud metadata service, 169.254.169.254 and fd00:ec2::254), carrier-grade NAT,
 * multicast, reserved and unspecified ranges. Otherwise an operator (or a stolen key's owner) could
 * make the service call its own admin ports or read cloud credentials (server-side request forgery).
 *
 * The URL is checked when an endpoint is created or changed (a clear one-line refusal), and every
 * address is checked again when a delivery connects (src/webhooks/transport.ts: a DNS lookup of our
 * own on the connection, so a name that resolves elsewhere later, or a DNS rebinding, is caught;
 * redirects are never followed). `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` lifts both rules (http too), for
 * development and tests.
 */
export class TargetError extends Error {
  override name = 'TargetError';
}

/** The address is one of the public unicast internet; IPv4-mapped IPv6 is judged as the IPv4 it maps. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'unicast';
}

const MAX_URL_LENGTH = 2048;

/** Appended to the refusals the setting lifts, so that a developer on localhost learns the way out. */
const PRIVATE_TARGETS_HINT = '; WEBHOOK_ALLOW_PRIVATE_TARGETS=true on the service allows http and private targets (development only)';

/** The URL as it will be stored, or a TargetError saying in one line what is wrong with it. */
export function checkTargetUrl(text: string, allowPrivate: boolean): string {
  if (text.length > MAX_URL_LENGTH) throw new TargetError(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TargetError(`"${text}" is not an absolute URL`);
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new TargetError(allowPrivate ? `the URL must be http(s), not ${url.protocol}` : `the URL must be https (got ${url.protocol.replace(':', '')})${url.protocol === 'http:' ? PRIVATE_TARGETS_HINT : ''}`);
  }
  if (url.username || url.password) throw new TargetError('the URL must not hold credentials (user:password@): the signature authenticates the sender');
  if (url.hash) throw new TargetError('the URL must not have a #fragment');
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
    if (ipaddr.isValid(host) && !isPublicAddress(host)) throw new TargetError(`${host} is not a public address (loopback, private, link-local and metadata addresses are refused)${PRIVATE_TARGETS_HINT}`);
    if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local') || !host.includes('.')) {
      throw new TargetError(`${host} is not a public host name${PRIVATE_TARGETS_HINT}`);
    }
  }
  return url.toString();
}
