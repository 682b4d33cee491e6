import { sql } from 'kysely';
import { addEndpoint, cpuSeconds, createRig, startService } from '../bench/webhooks-rig.js';
const rig = await createRig('postgres://postgres@127.0.0.1:5432/postgres', 20, 'whexp');
try {
  const endpointId = await addEndpoint(rig, 'http://127.0.0.1:9/hooks');
  const db = rig.database.primary;
  const service = await startService(rig);
  const attempts = async () => Number((await sql<{ n: string }>`SELECT coalesce(sum(attempts),0) AS n FROM webhook_deliveries`.execute(db)).rows[0].n);
  const measure = async (label: string) => {
    const c0 = await cpuSeconds(service.pid); const a0 = await attempts();
    await new Promise((r) => setTimeout(r, 10_000));
    console.log(label, 'service CPU s per s', ((await cpuSeconds(service.pid)) - c0) / 10, 'attempts/s', ((await attempts()) - a0) / 10);
  };
  await measure('without');
  await sql`WITH m AS (INSERT INTO webhook_messages (id, endpoint_id, event_type, body) SELECT 'msg_b_' || g, ${endpointId}::int, 'unit.changed', 'x' FROM generate_series(1, 10000) g RETURNING id, endpoint_id)
    INSERT INTO webhook_deliveries (message_id, endpoint_id, next_attempt_at) SELECT id, endpoint_id, now() + random() * interval '10 minutes' FROM m`.execute(db);
  await measure('with');
  await measure('with');
  await service.stop();
} finally { await rig.drop(); }
