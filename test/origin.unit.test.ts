import { describe, expect, it } from 'vitest';
import { isOriginAllowed, requestHost } from '../src/domain/origin.js';

describe('origin check', () => {
  it('takes the host of Origin, else of Referer', () => {
    expect(requestHost('https://a.ae:8443', 'https://b.ae/x')).toBe('a.ae');
    expect(requestHost(undefined, 'https://b.ae/x?y=1')).toBe('b.ae');
    expect(requestHost('https://user:pw@evil.com', undefined)).toBe('evil.com');
    expect(requestHost('null', undefined)).toBeUndefined();
    expect(requestHost(undefined, undefined)).toBeUndefined();
  });

  it('matches listed domains exactly, without wildcards', () => {
    expect(isOriginAllowed(null, undefined, undefined)).toBe(true);
    expect(isOriginAllowed([], undefined, undefined)).toBe(true);
    expect(isOriginAllowed(['agency.ae'], 'https://agency.ae', undefined)).toBe(true);
    expect(isOriginAllowed(['agency.ae'], 'https://www.agency.ae', undefined)).toBe(false);
    expect(isOriginAllowed(['*.agency.ae'], 'https://www.agency.ae', undefined)).toBe(false);
    expect(isOriginAllowed(['agency.ae'], 'https://agency.ae.', undefined)).toBe(true);
    expect(isOriginAllowed(['agency.ae'], undefined, undefined)).toBe(false);
  });
});
