import { describe, expect, it } from 'vitest';
import { perSnapshot } from '../src/search/per-snapshot.js';
import type { Snapshot } from '../src/search/snapshot.js';

// Stand-ins for snapshots: perSnapshot keys by identity and reads nothing of them.
const snapshotA = {} as Snapshot;
const snapshotB = {} as Snapshot;

describe('perSnapshot', () => {
  it('makes a value once per snapshot, and one per snapshot', () => {
    let made = 0;
    const of = perSnapshot(() => ({ n: ++made }));
    expect(of.peek(snapshotA)).toBeUndefined();
    const a = of(snapshotA);
    expect(of(snapshotA)).toBe(a);
    expect(of.peek(snapshotA)).toBe(a);
    const b = of(snapshotB);
    expect(b).not.toBe(a);
    expect(made).toBe(2);
  });

  it('passes the snapshot to make', () => {
    const of = perSnapshot((snapshot) => snapshot);
    expect(of(snapshotB)).toBe(snapshotB);
  });

  it('peek makes nothing', () => {
    let made = 0;
    const of = perSnapshot(() => ++made);
    of.peek(snapshotA);
    expect(made).toBe(0);
  });
});
