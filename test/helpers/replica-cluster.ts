import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

/*
 * A throwaway PostgreSQL primary and a streaming replica of it, on this machine: each cluster in its
 * own directory under the system temp dir, on its own port on 127.0.0.1, its socket in that directory
 * (nothing shared with a PostgreSQL already running). The replica is made the way production makes
 * one: `pg_basebackup -R` copies the primary and writes standby.signal and primary_conninfo.
 *
 * PostgreSQL refuses to run as root: as root, every command runs as the `postgres` user, which owns
 * the directories. The binaries are found on PATH, or in PG_BIN when set (e.g. the output of
 * `pg_config --bindir`).
 *
 * Used by the scale-out tests (test/scale-out) and usable from scripts:
 *   const cluster = await startReplicaCluster(); try { ... } finally { await cluster.destroy(); }
 */

const run = promisify(execFile);

export interface ReplicaCluster {
  primaryUrl: string;
  replicaUrl: string;
  stopPrimary(): Promise<void>;
  startPrimary(): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Stops every cluster started and removes the directory; safe to call more than once. */
  destroy(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

function binary(name: string): string {
  return process.env.PG_BIN ? join(process.env.PG_BIN, name) : name;
}

/** [command, args] running `name` as the postgres user when this process is root. */
function asPostgres(name: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', binary(name), ...args]] : [binary(name), args];
}

/** Why the cluster cannot be made here (binaries missing), or undefined when it can. */
export function replicaClusterUnavailable(): string | undefined {
  for (const name of ['initdb', 'pg_ctl', 'pg_basebackup']) {
    try {
      execFileSync(binary(name), ['--version'], { stdio: 'ignore' });
    } catch {
      return `PostgreSQL's ${name} is not on PATH (or in PG_BIN): the scale-out tests need initdb, pg_ctl and pg_basebackup`;
    }
  }
  if (asRoot) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root without a postgres user: PostgreSQL refuses to run as root';
    }
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function postgres(name: string, args: string[]): Promise<void> {
  const [command, commandArgs] = asPostgres(name, args);
  try {
    await run(command, commandArgs, { timeout: 120_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${name} ${args.join(' ')} failed: ${stderr || stdout || String(error)}`);
  }
}

export async function startReplicaCluster(): Promise<ReplicaCluster> {
  const reason = replicaClusterUnavailable();
  if (reason) throw new Error(reason);

  const root = mkdtempSync(join(tmpdir(), 'catalogue-replicas-'));
  const primaryDir = join(root, 'primary');
  const replicaDir = join(root, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }

  const started = new Set<string>();
  const pgCtl = async (dir: string, action: 'start' | 'stop') => {
    if (action === 'start') {
      await postgres('pg_ctl', ['-D', dir, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
      started.add(dir);
    } else {
      // fast: sessions are disconnected (as in a real outage), the data stays consistent.
      await postgres('pg_ctl', ['-D', dir, '-m', 'fast', '-w', '-t', '60', 'stop']);
      started.delete(dir);
    }
  };

  // Last resort when the test process exits without destroy() (a crash in a hook): stop, synchronously.
  const stopAllNow = () => {
    for (const dir of started) {
      try {
        const [command, args] = asPostgres('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']);
        execFileSync(command, args, { stdio: 'ignore' });
      } catch {
        // already stopped
      }
    }
    started.clear();
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', stopAllNow);

  let destroyed: Promise<void> | undefined;
  const destroy = () =>
    (destroyed ??= (async () => {
      for (const dir of [...started]) await pgCtl(dir, 'stop').catch(() => {});
      stopAllNow();
      process.off('exit', stopAllNow);
    })());

  try {
    await postgres('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
    // initdb's pg_hba.conf already allows replication connections from 127.0.0.1 (trust, as asked).
    appendFileSync(
      join(primaryDir, 'postgresql.conf'),
      [
        '',
        `port = ${primaryPort}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${root}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'wal_keep_size = 256MB',
        // Throwaway data: no need to wait for the disk.
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'shared_buffers = 32MB',
        '',
      ].join('\n'),
    );
    await pgCtl(primaryDir, 'start');

    await postgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '--no-sync']);
    appendFileSync(join(replicaDir, 'postgresql.conf'), `\nport = ${replicaPort}\nhot_standby = on\n`);
    await pgCtl(replicaDir, 'start');

    const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
    const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
    await waitForStreaming(primaryUrl);
    return {
      primaryUrl,
      replicaUrl,
      stopPrimary: () => pgCtl(primaryDir, 'stop'),
      startPrimary: () => pgCtl(primaryDir, 'start'),
      stopReplica: () => pgCtl(replicaDir, 'stop'),
      startReplica: () => pgCtl(replicaDir, 'start'),
      destroy,
    };
  } catch (error) {
    await destroy();
    throw error;
  }
}

/** Until the primary has a streaming WAL sender (the replica connected and caught up once). */
async function waitForStreaming(primaryUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 300; attempt++) {
      const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'");
      if (rows[0].n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the replica did not start streaming within 30 s');
  } finally {
    await client.end();
  }
}
