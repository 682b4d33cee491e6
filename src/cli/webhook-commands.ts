import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_EVENT_TYPES, EventTypesError, parseEventTypes, type EventType } from '../domain/webhook-events.js';
import { checkTargetUrl, TargetError } from '../domain/webhook-target.js';
import { listDeliveries, redeliverOne, redeliverSince, type DeliveryListing } from '../queries/webhook-deliveries.js';
import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
  type EndpointChanges,
  type EndpointListing,
} from '../queries/webhook-endpoints.js';
import { pingEndpoint } from '../webhooks/ping.js';
import { integer, UsageError, type CliContext } from './cli-context.js';

/*
 * `catalogue webhooks …` (contract: ../shared/spec/catalogue-bundle.md, "Webhooks outside a bundle").
 * Like the key commands they run wherever the CLI runs them (here on PostgreSQL or an unserved
 * directory, or inside the service that holds the embedded directory), with the same output.
 */

function endpointLine(endpoint: EndpointListing): string {
  const state = endpoint.enabled ? 'enabled' : `disabled${endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ''}`;
  const rotation = endpoint.previous_secret_until && Date.parse(endpoint.previous_secret_until) > Date.now() ? `\tprevious secret until ${endpoint.previous_secret_until}` : '';
  return `${endpoint.id}\tkey ${endpoint.api_key_id} (${endpoint.key_prefix}…)\tcompany ${endpoint.company_id}\t${state}\tevents ${endpoint.event_types.join(',')}\t${endpoint.url}${rotation}`;
}

function deliveryLine(delivery: DeliveryListing): string {
  const outcome = delivery.last_status !== null ? `HTTP ${delivery.last_status}` : (delivery.last_error ?? '-');
  const when = delivery.state === 'pending' ? `next attempt ${delivery.next_attempt_at}` : `${delivery.state} at ${delivery.completed_at}`;
  const error = delivery.last_status !== null && delivery.last_error && delivery.state !== 'delivered' ? ` ${delivery.last_error}` : '';
  return `${delivery.id}\t${delivery.message_id}\t${delivery.event_type}\t${delivery.state}\tattempts ${delivery.attempts}\t${outcome}${error}\tqueued ${delivery.created_at}\t${when}`;
}

const eventsOption = (value: string) => {
  try {
    return parseEventTypes(value);
  } catch (error) {
    if (error instanceof EventTypesError) throw new InvalidArgumentError(error.message);
    throw error;
  }
};

const booleanOption = (name: string) => (value: string) => {
  if (value !== 'true' && value !== 'false') throw new InvalidArgumentError(`${name} must be true or false`);
  return value === 'true';
};

/** A time: RFC 3339, or a duration ago (`30m`, `2h`, `7d`). */
const timeOption = (name: string) => (value: string) => {
  const ago = /^(\d+)([smhd])$/.exec(value.trim());
  if (ago) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(Date.now() - Number(ago[1]) * unit).toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError(`${name} must be an RFC 3339 time (2026-11-25T10:00:00Z) or a duration ago (30m, 2h, 7d)`);
  }
  return new Date(value).toISOString();
};

export function addWebhookCommands(program: Command, context: CliContext): void {
  const { io, config, withDatabase } = context;
  const print = (line: string) => io.stdout(`${line}\n`);
  const checkUrl = (url: string) => {
    try {
      return checkTargetUrl(url, config().webhooks.allowPrivateTargets);
    } catch (error) {
      if (error instanceof TargetError) throw new UsageError(`bad --url: ${error.message}`);
      throw error;
    }
  };
  const mustExist = async <T>(found: Promise<T | undefined>, id: number): Promise<T> => {
    const value = await found;
    if (value === undefined) throw new UsageError(`webhook endpoint ${id} does not exist`);
    return value;
  };

  const webhooks = program.command('webhooks').description('manage webhook endpoints (signed pushes of catalogue changes and applications)');

  webhooks
    .command('create')
    .description('add an endpoint to a key; the signing secret is printed once')
    .usage('--key KEY_ID --url URL [options]')
    .requiredOption('--key <id>', 'the API key whose view (visibility, prices) the endpoint gets (required)', integer('--key'))
    .requiredOption('--url <url>', 'https URL that receives the POSTs (required)')
    .option('--events <types>', `comma-separated event types (default: ${DEFAULT_EVENT_TYPES.join(',')})`, eventsOption)
    .action(async (options: { key: number; url: string; events?: EventType[] }) => {
      const url = checkUrl(options.url);
      await withDatabase(async ({ db }) => {
        const { endpoint, secret } = await createEndpoint(db, { keyId: options.key, url, eventTypes: options.events ?? DEFAULT_EVENT_TYPES });
        print(endpointLine(endpoint));
        print(`\nSigning secret (shown once; verify the webhook-signature header with it, see docs/integrating.md):\n${secret}`);
      });
    });

  webhooks
    .command('list')
    .description('list endpoints: enabled, or disabled and why')
    .option('--company <id>', 'only the endpoints of this agency\u2019s keys', integer('--company'))
    .action(async (options: { company?: number }) => {
      await withDatabase(async ({ db }) => {
        const rows = await listEndpoints(db, options.company);
        if (rows.length === 0) print('no webhook endpoints');
        for (const row of rows) print(endpointLine(row));
      });
    });

  webhooks
    .command('update')
    .description('change the URL, the event types, or enable/disable')
    .argument('<id>', 'endpoint id', integer('id'))
    .option('--url <url>', 'new https URL')
    .option('--events <types>', 'new comma-separated event types', eventsOption)
    .option('--enabled <bool>', 'true (deliveries held meanwhile are sent) or false', booleanOption('--enabled'))
    .action(async (id: number, options: { url?: string; events?: EventType[]; enabled?: boolean }) => {
      const changes: EndpointChanges = { url: options.url === undefined ? undefined : checkUrl(options.url), eventTypes: options.events, enabled: options.enabled };
      if (Object.values(changes).every((value) => value === undefined)) throw new UsageError('nothing to update: give --url, --events or --enabled');
      await withDatabase(async ({ db }) => print(endpointLine(await mustExist(updateEndpoint(db, id, changes), id))));
    });

  webhooks
    .command('rotate-secret')
    .description('new signing secret; requests carry both signatures for 24 h')
    .argument('<id>', 'endpoint id', integer('id'))
    .action(async (id: number) => {
      await withDatabase(async ({ db }) => {
        const { secret, previousUntil } = await mustExist(rotateSecret(db, id), id);
        print(`New signing secret (shown once; the previous one also signs until ${previousUntil}):\n${secret}`);
      });
    });

  webhooks
    .command('delete')
    .description('delete an endpoint with its delivery log')
    .argument('<id>', 'endpoint id', integer('id'))
    .action(async (id: number) => {
      await withDatabase(async ({ db }) => {
        if (!(await deleteEndpoint(db, id))) throw new UsageError(`webhook endpoint ${id} does not exist`);
        print(`deleted webhook endpoint ${id}`);
      });
    });

  webhooks
    .command('test')
    .description('queue a ping event, wait for its first attempt (by the running service, or by this command when none runs) and print the answer; retried like any delivery if it fails')
    .argument('<id>', 'endpoint id', integer('id'))
    .action(async (id: number) => {
      const cfg = config().webhooks;
      await withDatabase(async (database) => {
        await mustExist(findEndpoint(database.db, id), id);
        const ping = await mustExist(pingEndpoint(database, id, { timeoutMs: cfg.timeoutMs, allowPrivate: cfg.allowPrivateTargets, retry: { baseMs: cfg.retryBaseMs, retryForMs: cfg.retryForMs } }), id);
        const took = (word: string) => (ping.ms === null ? '' : ` ${word} ${ping.ms} ms`);
        if (!ping.delivered) throw new UsageError(`ping ${ping.messageId} (delivery ${ping.deliveryId}) not delivered: ${ping.answer}${took('after')}`);
        print(`ping ${ping.messageId} (delivery ${ping.deliveryId}) delivered: ${ping.answer}${took('in')}`);
      });
    });

  webhooks
    .command('deliveries')
    .description('the delivery log of an endpoint (kept 30 days)')
    .argument('<id>', 'endpoint id', integer('id'))
    .option('--since <time>', 'queued at or after (RFC 3339, or 30m, 2h, 7d ago)', timeOption('--since'))
    .option('--failed', 'only deliveries that failed, were dropped (their key revoked) or are being retried')
    .action(async (id: number, options: { since?: string; failed?: boolean }) => {
      await withDatabase(async ({ db }) => {
        await mustExist(findEndpoint(db, id), id);
        const rows = await listDeliveries(db, id, options);
        if (rows.length === 0) print('no deliveries');
        for (const row of rows) print(deliveryLine(row));
      });
    });

  webhooks
    .command('redeliver')
    .description('send again one delivery (same webhook-id and body), or every message of an endpoint since a time')
    .argument('[deliveryId]', 'delivery id (from `webhooks deliveries`)', integer('deliveryId'))
    .option('--endpoint <id>', 'with --since: every message of this endpoint', integer('--endpoint'))
    .option('--since <time>', 'with --endpoint: queued at or after (RFC 3339, or 30m, 2h, 7d ago)', timeOption('--since'))
    .action(async (deliveryId: number | undefined, options: { endpoint?: number; since?: string }) => {
      const bySince = options.endpoint !== undefined || options.since !== undefined;
      if (deliveryId !== undefined && bySince) throw new UsageError('give a delivery id, or --endpoint with --since, not both');
      if (deliveryId === undefined && (options.endpoint === undefined || options.since === undefined)) {
        throw new UsageError('give a delivery id, or --endpoint ID --since TIME');
      }
      await withDatabase(async ({ db }) => {
        if (deliveryId !== undefined) {
          const queued = await redeliverOne(db, deliveryId);
          if (!queued) throw new UsageError(`delivery ${deliveryId} does not exist`);
          print(`queued delivery ${queued.id} of ${queued.message_id} to endpoint ${queued.endpoint_id}`);
          return;
        }
        const endpoint = await mustExist(findEndpoint(db, options.endpoint!), options.endpoint!);
        const count = await redeliverSince(db, endpoint.id, options.since!);
        print(`queued ${count} deliveries to endpoint ${endpoint.id} (messages since ${options.since}; those still pending are not queued twice)`);
      });
    });
}
