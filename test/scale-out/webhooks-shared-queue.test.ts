import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBundle } from '../../src/import/import-bundle.js';
import { createApiKey } from '../../src/queries/api-key-admin.js';
import { createEndpoint } from '../../src/queries/webhook-endpoints.js';
import { leaseMs } from '../../src/webhooks/worker.js';
import { startApiProcess, type ApiProcess } from '../helpers/api-process.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { AGENCY, baseBundle, DEV, OWNER, withRecords } from '../helpers/fixtures.js';
import { startReceiver, type Received, type Receiver } from '../helpers/webhook-receiver.js';

/*
 * Two API processes (`catalogue serve`) on one PostgreSQL primary share the webhook delivery queue
 * (issue 26): claims go through the database (FOR UPDATE SKIP LOCKED plus a lease), so
 *  - in the normal case every event reaches the receiver exactly once, though both workers deliver;
 *  - when one process is killed (-9) mid-burst with deliveries in flight, the other delivers them once
 *    their lease has run out, and every event is delivered; nothing is lost.
 * Which process sent a request is read from the kernel: the receiver's peer port is a socket that
 * one of the two processes holds open (/proc/net/tcp gives its inode, /proc/<pid>/fd who has it).
 */
const postgres = Boolean(process.env.TEST_DATABASE_URL);
const UNITS = 20;
// Long enough that a loaded machine does not time out a 200 (a retry would be a legitimate duplicate).
const TIMEOUT_MS = 3_000;

/**
 * The pid among `pids` holding the sender's end of the TCP connection 127.0.0.1:`port` -> 127.0.0.1:`to`
 * (undefined: none of them). Both ends are matched, not the sender's port alone: Linux lets two
 * connections share a local port when their destinations differ, and a closed one lingers in TIME_WAIT
 * with inode 0, so the sender's port alone could name another connection (CI, stop 41: 36 requests
 * "from nobody", and a survivor's request taken for the victim's).
 */
function pidOfPeer(port: number, to: number, pids: number[]): number | undefined {
  const hex = (p: number) => `:${p.toString(16).toUpperCase().padStart(4, '0')}`;
  const inode = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[1]?.endsWith(hex(port)) && fields[2]?.endsWith(hex(to)) && fields[9] !== '0')?.[9];
  if (!inode) return undefined;
  // A descriptor may close between the listing and its readlink (the process opens and closes sockets
  // and files all the time during a burst): that one is skipped, not the whole process.
  const holds = (pid: number, fd: string) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
    } catch {
      return false;
    }
  };
  return pids.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => holds(pid, fd));
    } catch {
      return false;
    }
  });
}

describe.runIf(postgres)('two API processes share one webhook queue (postgres)', () => {
  let test: TestDatabase;
  let receiver: Receiver;
  let a: ApiProcess | undefined;
  let b: ApiProcess | undefined;
  const importing = (units: { id: number; project_id: number; unit_number: string; price: number }[]) => importBundle(test.database.db, { units }, { facilityLinkRadiusM: 10_000 });
  const unitsAt = (price: number) => Array.from({ length: UNITS }, (_, i) => ({ id: 100 + i, project_id: 1, unit_number: `U-${i}`, price: price + i }));

  /** Requests answered 2xx, with the process that sent each. */
  const answered: (Received & { pid: number | undefined; status: number | 'hang' })[] = [];
  /** The answer a request gets, given the pid that sent it. */
  let answerFor: (pid: number | undefined) => number | 'hang' = () => 200;

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    await importBundle(test.database.db, withRecords(baseBundle(), { projects: [{ id: 1, company_id: DEV, name: 'Shared Tower' }], units: unitsAt(1_000_000) }), { facilityLinkRadiusM: 10_000 });
    receiver = await startReceiver();
    receiver.on('/shared', (request) => {
      const pid = pidOfPeer(request.remotePort, request.localPort, [a?.child.pid, b?.child.pid].filter((p): p is number => p !== undefined));
      const status = answerFor(pid);
      answered.push({ ...request, pid, status });
      return status;
    });
    const { key } = await createApiKey(test.database.db, { companyId: AGENCY, authorId: OWNER, name: 'shared queue' });
    await createEndpoint(test.database.db, { keyId: key.id, url: receiver.url('/shared'), eventTypes: ['unit.changed'] });
    const env = { DATABASE_URL: test.url!, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_RETRY_BASE_MS: '100' };
    [a, b] = await Promise.all([startApiProcess(env), startApiProcess(env)]);
  }, 240_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await receiver?.close();
    await test?.drop();
  });

  const messageIds = async () => (await test.database.db.selectFrom('webhook_messages').select('id').execute()).map((m) => m.id);
  const delivered = () => answered.filter((r) => r.status === 200);
  const undelivered = () => test.database.db.selectFrom('webhook_deliveries').select(['id', 'state']).where('state', '<>', 'delivered').execute();

  it('delivers every event exactly once, the two workers sharing the burst', async () => {
    // A burst: 10 imports, each changing the 20 units' prices (200 events), both workers woken by each commit.
    for (let round = 1; round <= 10; round += 1) await importing(unitsAt(1_000_000 + round * 1_000));
    const ids = await messageIds();
    expect(ids).toHaveLength(10 * UNITS);
    await receiver.waitFor(() => new Set(delivered().map((r) => r.headers['webhook-id'])).size === ids.length, 90_000);
    await expect.poll(undelivered, { timeout: 30_000 }).toEqual([]);
    // A moment for a late second attempt, if a claim were ever shared, to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const sent = answered.map((r) => String(r.headers['webhook-id']));
    expect(sent).toHaveLength(ids.length);
    expect(new Set(sent)).toEqual(new Set(ids));
    const byProcess = new Map<number | undefined, number>();
    for (const r of answered) byProcess.set(r.pid, (byProcess.get(r.pid) ?? 0) + 1);
    expect(byProcess.get(undefined), 'every request came from one of the two processes').toBeUndefined();
    expect(byProcess.get(a!.child.pid!), 'process a delivered some').toBeGreaterThan(0);
    expect(byProcess.get(b!.child.pid!), 'process b delivered some').toBeGreaterThan(0);
  }, 180_000);

  it('when one process is killed -9 mid-burst, the other delivers its leased deliveries once the lease ends; nothing is lost', async () => {
    answered.length = 0;
    const before = new Set(await messageIds());
    const victim = a!;
    const survivor = b!;
    // The victim's requests hang (so it holds deliveries in flight); the survivor's are answered 200. A
    // request whose sender cannot be told (its socket gone from /proc by the time it is looked up, as
    // around the kill) hangs too: answered 200 it would count as a 2xx from nobody (CI, stop 33); the
    // survivor's retry of it is told apart and answered.
    answerFor = (pid) => (pid === survivor.child.pid ? 200 : 'hang');

    const burst = (async () => {
      for (let round = 11; round <= 20; round += 1) await importing(unitsAt(1_000_000 + round * 1_000));
    })();
    await receiver.waitFor(() => answered.filter((r) => r.status === 'hang').length >= 5, 60_000);
    // What the victim holds at the kill: claimed within the last attempt timeout, so leased for at least leaseMs - TIMEOUT_MS more.
    const killedAt = Date.now();
    const inFlight = new Set(answered.filter((r) => r.status === 'hang' && r.at > killedAt - TIMEOUT_MS + 200).map((r) => String(r.headers['webhook-id'])));
    await victim.kill9();
    await burst;

    const ids = (await messageIds()).filter((id) => !before.has(id));
    expect(ids).toHaveLength(10 * UNITS);
    await receiver.waitFor(() => new Set(delivered().map((r) => r.headers['webhook-id'])).size === ids.length, 120_000);
    await expect.poll(undelivered, { timeout: 30_000 }).toEqual([]);

    // Nothing lost, nothing answered 2xx twice; every 2xx came from the survivor.
    const ok = delivered();
    expect(new Set(ok.map((r) => String(r.headers['webhook-id'])))).toEqual(new Set(ids));
    expect(ok).toHaveLength(ids.length);
    expect(ok.every((r) => r.pid === survivor.child.pid)).toBe(true);
    // What the victim held when it died was delivered by the survivor, and not before the lease ran out.
    expect(inFlight.size).toBeGreaterThan(0);
    const lease = leaseMs(TIMEOUT_MS);
    for (const id of inFlight) {
      const taken = ok.find((r) => r.headers['webhook-id'] === id)!;
      expect(taken.at - killedAt, `${id} delivered ${taken.at - killedAt} ms after the kill`).toBeGreaterThanOrEqual(lease - TIMEOUT_MS - 1_000);
    }
  }, 240_000);
});
