import { describe, expect, it } from 'vitest';
import { onDemand } from '../src/lib/on-demand.js';

/*
 * src/lib/on-demand.ts, as POST /mcp uses it to start its MCP server on the first request: one start for
 * concurrent first asks, a failed start tried again, nothing started once closed, a start in flight
 * stopped by the close that waited for it.
 */

class Closed extends Error {}

function rig(failures = 0) {
  const calls = { starts: 0, stops: [] as number[] };
  let release: (() => void) | undefined;
  let gated = false;
  const demand = onDemand(
    async () => {
      const n = ++calls.starts;
      if (gated) await new Promise<void>((resolve) => (release = resolve));
      if (n <= failures) throw new Error(`start ${n} failed`);
      return n;
    },
    async (value: number) => {
      calls.stops.push(value);
    },
    () => new Closed('closed'),
  );
  return { demand, calls, gate: () => (gated = true), release: () => release?.() };
}

describe('onDemand', () => {
  it('starts once for concurrent first asks, and keeps the value', async () => {
    const { demand, calls } = rig();
    const values = await Promise.all([demand.get(), demand.get(), demand.get()]);
    expect(values).toEqual([1, 1, 1]);
    expect(await demand.get()).toBe(1);
    expect(calls.starts).toBe(1);
  });

  it('tries a failed start again on the next ask, not on the asks that shared it', async () => {
    const { demand, calls } = rig(1);
    const first = await Promise.allSettled([demand.get(), demand.get()]);
    expect(first.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(calls.starts).toBe(1);
    expect(await demand.get()).toBe(2);
    expect(calls.starts).toBe(2);
  });

  it('stops what it started when closed, and starts nothing after', async () => {
    const { demand, calls } = rig();
    await demand.get();
    await demand.close();
    expect(calls.stops).toEqual([1]);
    await expect(demand.get()).rejects.toBeInstanceOf(Closed);
    expect(calls.starts).toBe(1);
  });

  it('closed before any ask: nothing started, nothing stopped', async () => {
    const { demand, calls } = rig();
    await demand.close();
    await expect(demand.get()).rejects.toBeInstanceOf(Closed);
    expect(calls).toEqual({ starts: 0, stops: [] });
  });

  it('a close during a start waits for it and stops its value; a failed start in flight is not stopped', async () => {
    const ok = rig();
    ok.gate();
    const asked = ok.demand.get();
    const closing = ok.demand.close();
    ok.release();
    expect(await asked).toBe(1);
    await closing;
    expect(ok.calls.stops).toEqual([1]);

    const failing = rig(1);
    failing.gate();
    const failed = failing.demand.get().catch((error: Error) => error.message);
    const closed = failing.demand.close();
    failing.release();
    expect(await failed).toBe('start 1 failed');
    await closed;
    expect(failing.calls.stops).toEqual([]);
    await expect(failing.demand.get()).rejects.toBeInstanceOf(Closed);
  });
});
