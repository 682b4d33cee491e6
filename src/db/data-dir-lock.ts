import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/*
 * One process per embedded data directory. PGlite keeps the database in memory and writes the
 * directory back as it goes: a second process opening the same directory works on its own copy, and
 * whichever writes last wins, so the other one's changes vanish (a key created by the CLI while
 * `npm start` ran was gone after the restart). The process that opens a directory therefore holds
 * `catalogue.lock` in it; a second one is refused (the CLI then passes its command through the running
 * process: src/cli/management.ts).
 *
 * The lock is a file holding the owner's pid and host, written whole under a temporary name and
 * hard-linked into place (link fails if the name exists, so no reader ever sees it half-written). A lock whose process is
 * gone (a crash, a kill -9) is stale and taken over. Written here rather than with proper-lockfile:
 * that library detects staleness by the file's age (default 10 s, refreshed by a timer), so a restart
 * right after a crash would be refused or have to wait; an embedded directory is on one host, where
 * asking the kernel whether the pid lives is exact and immediate.
 */
export const LOCK_FILE = 'catalogue.lock';

export interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    super(`the data directory ${dataDir} is in use by process ${owner.pid} (since ${owner.since})`);
  }
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const owner: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, JSON.stringify(owner), { mode: 0o600 });
  try {
    return takeLock(dataDir, path, draft, owner);
  } finally {
    rmSync(draft, { force: true });
  }
}

function takeLock(dataDir: string, path: string, draft: string, owner: LockOwner): DataDirLock {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      linkSync(draft, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const current = readOwner(path);
      if (current && isAlive(current)) throw new DataDirInUseError(dataDir, current);
      // Stale (or half-written by a process that died while creating it): moved aside atomically, so
      // that of two processes starting at once only one takes it over; the other retries and finds
      // the winner's lock.
      const aside = `${path}.stale-${process.pid}`;
      try {
        renameSync(path, aside);
      } catch {
        continue; // Another process moved it first.
      }
      // What was moved is normally the stale lock just read; if a process that started at the same
      // moment had already taken the directory over, its lock is put back.
      const moved = readOwner(aside);
      if (moved && isAlive(moved)) {
        try {
          linkSync(aside, path);
        } catch {
          // Somebody holds it again either way.
        }
      }
      rmSync(aside, { force: true });
      continue;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      const current = readOwner(path);
      if (current && current.pid === owner.pid && current.host === owner.host) rmSync(path, { force: true });
    };
    // A process that exits without closing the database still frees the directory.
    process.on('exit', release);
    return { release };
  }
  throw new Error(`could not lock ${path}: it keeps changing`);
}

/** Who holds the directory, or undefined when nobody live does. */
export function dataDirOwner(dataDir: string): LockOwner | undefined {
  const current = readOwner(join(dataDir, LOCK_FILE));
  return current && isAlive(current) ? current : undefined;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.host === 'string') return { pid: value.pid, host: value.host, since: String(value.since) };
  } catch {
    // Missing, empty or unreadable: nobody holds it.
  }
  return undefined;
}

function isAlive(owner: LockOwner): boolean {
  // A lock from another host (a directory on a shared disk) cannot be checked: it is respected.
  if (owner.host !== hostname()) return true;
  if (owner.pid === process.pid) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(owner.pid);
}

/** A process that has exited but whose parent has not collected it yet still answers kill(pid, 0). */
function isZombie(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (comm) S ...", the state after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
