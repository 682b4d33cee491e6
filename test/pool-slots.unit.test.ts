import { describe, expect, it } from 'vitest';
import { isUnavailable } from '../src/db/errors.js';
import { createPoolSlots, halfThePool, SlotWaitTimeout } from '../src/db/pool-slots.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A task that records when it runs and finishes when told. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('createPoolSlots', () => {
  it('runs at most `size` tasks at once and starts the others in arrival order', async () => {
    const slots = createPoolSlots('test', 2, 1_000);
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, gate);
    const runs = gates.map((g, i) =>
      slots.run(async () => {
        started.push(i);
        await g.opened;
        return i;
      }),
    );
    await sleep(10);
    expect(started).toEqual([0, 1]);
    expect(slots.waiting).toBe(3);
    gates[1].open();
    await sleep(10);
    expect(started).toEqual([0, 1, 2]);
    gates[0].open();
    gates[2].open();
    await sleep(10);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[3].open();
    gates[4].open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(slots.waiting).toBe(0);
  });

  it('waits without a limit when maxWaitMs is Infinity', async () => {
    const slots = createPoolSlots('test', 1, Number.POSITIVE_INFINITY);
    const held = gate();
    const holder = slots.run(() => held.opened);
    let outcome = 'waiting';
    const waiter = slots.run(async () => 'ran').then((value) => (outcome = value), (error: unknown) => (outcome = String(error)));
    await sleep(50);
    expect(outcome).toBe('waiting');
    held.open();
    await Promise.all([holder, waiter]);
    expect(outcome).toBe('ran');
  });

  it('frees the slot when a task fails', async () => {
    const slots = createPoolSlots('test', 1, 1_000);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run(async () => 'next')).toBe('next');
  });

  it('gives up waiting after maxWaitMs without running the task, and that counts as unavailable', async () => {
    const slots = createPoolSlots('test', 1, 50);
    const held = gate();
    const holder = slots.run(() => held.opened);
    let ran = false;
    const error = await slots.run(async () => (ran = true)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlotWaitTimeout);
    expect((error as Error).message).toBe('no test slot free within 50 ms');
    expect(isUnavailable(error)).toBe(true);
    expect(ran).toBe(false);
    expect(slots.waiting).toBe(0);
    held.open();
    await holder;
    expect(await slots.run(async () => 'free again')).toBe('free again');
  });
});

describe('halfThePool', () => {
  it('is half the connections, rounded down, and at least one', () => {
    expect([1, 2, 3, 10, 11].map(halfThePool)).toEqual([1, 1, 1, 5, 5]);
  });
});
