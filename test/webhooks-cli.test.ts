import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { buildCli, runCli, type CliContext } from '../src/cli/commands.js';
import { loadConfig } from '../src/config/config.js';
import { createApiKey } from '../src/queries/api-key-admin.js';
import { createTestDatabase, drivers, type TestDatabase } from './helpers/databases.js';
import { importBundle } from '../src/import/import-bundle.js';
import { AGENCY, baseBundle, OWNER } from './helpers/fixtures.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { startDeliveryWorker } from '../src/webhooks/worker.js';

/*
 * `catalogue webhooks …` as the operator runs it (commander, the same program main.ts runs, here
 * in-process on a test database): output, one-line refusals, exit codes.
 */
describe.each(drivers)('webhooks CLI (%s)', (driver) => {
  let test: TestDatabase;
  let receiver: Receiver;
  let keyId: number;

  async function cli(argv: string[], env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '500' }) {
    let stdout = '';
    let stderr = '';
    const context: CliContext = {
      config: () => loadConfig({ LOG_LEVEL: 'silent', ...env }),
      io: { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) },
      cwd: process.cwd(),
      withDatabase: (work) => work(test.database),
    };
    const code = await runCli(buildCli(context), argv, context.io);
    return { code, stdout, stderr };
  }

  beforeAll(async () => {
    test = await createTestDatabase(driver);
    await importBundle(test.database.db, baseBundle(), { facilityLinkRadiusM: 10_000 });
    keyId = (await createApiKey(test.database.db, { companyId: AGENCY, authorId: OWNER, name: 'site' })).key.id;
    receiver = await startReceiver();
  }, 180_000);
  afterAll(async () => {
    await receiver?.close();
    await test?.drop();
  });

  it('creates an endpoint, prints the secret once, lists, updates, tests, rotates and deletes it', async () => {
    const created = await cli(['webhooks', 'create', '--key', String(keyId), '--url', receiver.url('/hook'), '--events', 'unit.changed,application.created']);
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
    expect(secret).toBeDefined();
    const id = Number(created.stdout.split('\t')[0]);
    expect(created.stdout).toContain('enabled\tevents unit.changed,application.created');

    const listed = await cli(['webhooks', 'list', '--company', String(AGENCY)]);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\tkey ${keyId} \\(ck_[0-9a-f]{6}…\\)\\tcompany 1\\tenabled`));
    expect(listed.stdout).not.toContain('whsec_');

    const ping = await cli(['webhooks', 'test', String(id)]);
    expect(ping.code, ping.stderr).toBe(0);
    expect(ping.stdout).toMatch(/^ping msg_[0-9a-f]{32} \(delivery \d+\) delivered: HTTP 200 in \d+ ms/);
    const [request] = receiver.received.filter((r) => r.path === '/hook');
    expect(new Webhook(secret!).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'ping', data: { endpoint_id: id } });

    const deliveries = await cli(['webhooks', 'deliveries', String(id)]);
    expect(deliveries.stdout).toMatch(/\tping\tdelivered\tattempts 1\tHTTP 200\t/);
    expect((await cli(['webhooks', 'deliveries', String(id), '--failed'])).stdout).toBe('no deliveries\n');

    const disabled = await cli(['webhooks', 'update', String(id), '--enabled', 'false']);
    expect(disabled.stdout).toMatch(/\tdisabled \(disabled by the operator at .*\)\t/);
    const enabled = await cli(['webhooks', 'update', String(id), '--enabled', 'true', '--events', 'project.changed']);
    expect(enabled.stdout).toMatch(/\tenabled\tevents project\.changed\t/);

    const rotated = await cli(['webhooks', 'rotate-secret', String(id)]);
    const newSecret = rotated.stdout.match(/whsec_[A-Za-z0-9+/=]+/)?.[0];
    expect(newSecret).toBeDefined();
    expect(newSecret).not.toBe(secret);
    expect((await cli(['webhooks', 'list'])).stdout).toContain('previous secret until');

    const redelivered = await cli(['webhooks', 'redeliver', '--endpoint', String(id), '--since', '1h']);
    expect(redelivered.stdout).toMatch(/^queued 1 deliveries to endpoint/);

    expect((await cli(['webhooks', 'delete', String(id)])).stdout).toBe(`deleted webhook endpoint ${id}\n`);
    expect((await cli(['webhooks', 'list'])).stdout).toBe('no webhook endpoints\n');
  });

  it('reports a failed ping with the answer and exits 1', async () => {
    receiver.on('/down', 503);
    const created = await cli(['webhooks', 'create', '--key', String(keyId), '--url', receiver.url('/down')]);
    const id = created.stdout.split('\t')[0];
    const ping = await cli(['webhooks', 'test', id]);
    expect(ping.code).toBe(1);
    expect(ping.stderr).toMatch(/^error: ping msg_\w+ \(delivery \d+\) not delivered: HTTP 503 after \d+ ms\n$/);
  });

  it('`webhooks test` waits for the running service\u2019s attempt and prints its outcome (with the service\u2019s settings, not the CLI\u2019s)', async () => {
    // The service allows private targets; the operator's CLI environment does not (as in the guide).
    const worker = await startDeliveryWorker(test.database, { timeoutMs: 1_000, allowPrivate: true, retry: { baseMs: 200, retryForMs: 60_000 } });
    try {
      const created = await cli(['webhooks', 'create', '--key', String(keyId), '--url', receiver.url('/served'), '--events', 'application.created']);
      const id = created.stdout.split('\t')[0];
      const ping = await cli(['webhooks', 'test', id], {});
      expect(ping.code, ping.stderr).toBe(0);
      expect(ping.stdout).toMatch(/^ping msg_[0-9a-f]{32} \(delivery \d+\) delivered: HTTP 200 in \d+ ms\n$/);
      // Exactly one request: the service's; the command did not send its own.
      expect(receiver.received.filter((r) => r.path === '/served')).toHaveLength(1);

      receiver.on('/served-failing', 500);
      const failing = (await cli(['webhooks', 'create', '--key', String(keyId), '--url', receiver.url('/served-failing'), '--events', 'application.created'])).stdout.split('\t')[0];
      const refused = await cli(['webhooks', 'test', failing], {});
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: ping msg_\w+ \(delivery \d+\) not delivered: HTTP 500 \(the service retries it like any delivery\)\n$/);
      expect(receiver.received.filter((r) => r.path === '/served-failing')).toHaveLength(1);
    } finally {
      await worker.close();
    }
  });

  it('refuses bad URLs, unknown events and unknown ids in one line', async () => {
    const strict = { WEBHOOK_TIMEOUT_MS: '500' };
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [['webhooks', 'create', '--key', String(keyId), '--url', 'http://hooks.example.com/x'], /^error: bad --url: the URL must be https \(got http\); WEBHOOK_ALLOW_PRIVATE_TARGETS=true on the service allows http and private targets \(development only\)\n$/, strict],
      [['webhooks', 'create', '--key', String(keyId), '--url', 'https://127.0.0.1/x'], /^error: bad --url: 127\.0\.0\.1 is not a public address .*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/, strict],
      [['webhooks', 'create', '--key', String(keyId), '--url', 'https://169.254.169.254/latest'], /not a public address/, strict],
      [['webhooks', 'create', '--key', String(keyId), '--url', 'https://[::1]/x'], /::1 is not a public address/, strict],
      [['webhooks', 'create', '--key', String(keyId), '--url', 'https://localhost/x'], /localhost is not a public host name; WEBHOOK_ALLOW_PRIVATE_TARGETS=true/, strict],
      [['webhooks', 'create', '--key', String(keyId), '--url', 'not a url'], /is not an absolute URL/],
      [['webhooks', 'create', '--key', String(keyId), '--url', 'https://hooks.example.com/', '--events', 'unit.changed,nope'], /unknown event type nope/],
      [['webhooks', 'create', '--key', '999', '--url', 'https://hooks.example.com/'], /^error: key 999 does not exist\n$/],
      [['webhooks', 'update', '999', '--enabled', 'true'], /^error: webhook endpoint 999 does not exist\n$/],
      [['webhooks', 'update', '1'], /nothing to update/],
      [['webhooks', 'redeliver'], /give a delivery id, or --endpoint ID --since TIME/],
      [['webhooks', 'deliveries', '1', '--since', 'yesterday'], /--since must be an RFC 3339 time/],
    ];
    for (const [argv, message, env] of cases) {
      const result = await cli(argv, env);
      expect(result.code, argv.join(' ')).not.toBe(0);
      expect(result.stderr, argv.join(' ')).toMatch(message);
      // URL and lookup refusals are one line; commander's option errors add the usage after it, as for keys.
      if (!argv.includes('--events') && !argv.includes('--since')) expect(result.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    // A public https URL is taken as it is.
    const ok = await cli(['webhooks', 'create', '--key', String(keyId), '--url', 'https://hooks.example.com/catalogue'], strict);
    expect(ok.code, ok.stderr).toBe(0);
  });
});
