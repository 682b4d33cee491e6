import { describe, expect, it } from 'vitest';
import { afterAttempt, MAX_RETRY_WAIT_MS, retryDelayMs } from '../src/domain/webhook-retry.js';
import { checkTargetUrl, isPublicAddress } from '../src/domain/webhook-target.js';
import { postWebhook } from '../src/webhooks/transport.js';
import { startReceiver } from './helpers/webhook-receiver.js';

/* Where webhooks may go (checked at creation and again at connect time), and when they are retried. */
describe('webhook targets', () => {
  it('takes only public addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '224.0.0.1']) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ['8.8.8.8', '203.0.113.7'.replace('203.0.113', '93.184.216'), '2a00:1450:4001::200e']) expect(isPublicAddress(address), address).toBe(true);
  });

  it('refuses http, credentials, private literals and local names unless private targets are allowed', () => {
    expect(checkTargetUrl('https://hooks.example.com/in?x=1', false)).toBe('https://hooks.example.com/in?x=1');
    for (const url of ['http://hooks.example.com/', 'https://user:pw@hooks.example.com/', 'https://10.0.0.5/', 'https://2130706433/', 'https://[fd00:ec2::254]/', 'https://metadata/', 'https://svc.internal/', 'ftp://x.example.com/']) {
      expect(() => checkTargetUrl(url, false), url).toThrow();
    }
    expect(checkTargetUrl('http://127.0.0.1:8080/hook', true)).toBe('http://127.0.0.1:8080/hook');
    expect(() => checkTargetUrl('ftp://127.0.0.1/', true)).toThrow(/http\(s\)/);
  });

  it('checks every address at connect time: a name resolving to loopback is refused, nothing is sent', async () => {
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url('/')).port;
      const byName = await postWebhook(`http://localhost:${port}/x`, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
      expect(byName.error).toMatch(/^refused: /);
      const byLiteral = await postWebhook(`https://127.0.0.1:${port}/x`, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
      expect(byLiteral.error).toMatch(/^refused: 127\.0\.0\.1 is not a public address/);
      // The lookup itself: https to a name that resolves to loopback.
      const https = await postWebhook(`https://localhost:${port}/x`, {}, '{}', { timeoutMs: 1000, allowPrivate: false });
      expect(https.error).toMatch(/refused: localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);
      expect(receiver.received).toEqual([]);
      // Allowed for development: delivered.
      expect((await postWebhook(`http://localhost:${port}/x`, {}, '{}', { timeoutMs: 1000, allowPrivate: true })).status).toBe(200);
    } finally {
      await receiver.close();
    }
  });

  it('does not follow redirects', async () => {
    const receiver = await startReceiver();
    try {
      receiver.on('/moved', 302);
      const result = await postWebhook(receiver.url('/moved'), {}, '{}', { timeoutMs: 1000, allowPrivate: true });
      expect(result.status).toBe(302);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('webhook retries', () => {
  const policy = { baseMs: 5_000, retryForMs: 72 * 3600_000 };
  it('backs off exponentially with jitter, capped at an hour', () => {
    expect(retryDelayMs(1, policy, () => 0)).toBe(2_500);
    expect(retryDelayMs(1, policy, () => 1)).toBe(5_000);
    expect(retryDelayMs(4, policy, () => 1)).toBe(40_000);
    expect(retryDelayMs(40, policy, () => 1)).toBe(MAX_RETRY_WAIT_MS);
  });
  it('delivers on 2xx, gives up at once on 410, and after the window otherwise', () => {
    expect(afterAttempt(204, 1, 0, policy)).toEqual({ kind: 'delivered' });
    expect(afterAttempt(410, 1, 0, policy)).toEqual({ kind: 'gone' });
    expect(afterAttempt(500, 1, 0, policy, () => 0)).toEqual({ kind: 'failed', delayMs: 2_500 });
    expect(afterAttempt(undefined, 3, 0, policy).kind).toBe('failed');
    expect(afterAttempt(301, 1, policy.retryForMs - 1_000, policy, () => 1)).toEqual({ kind: 'given up' });
  });
});
