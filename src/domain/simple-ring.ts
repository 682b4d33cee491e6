import { orient2d } from 'robust-predicates';

/*
 * Whether a ring is simple, in O(n log n) however the edges lie (a drawn shape's validity, geo.ts).
 * A ring of n vertices has n edges, edge i joining vertex i to vertex i + 1 (the last to the first).
 * It is simple when no two edges meet except two neighbours at the vertex they share. Every
 * orientation is exact (Shewchuk's predicates, robust-predicates): collinear and touching cases are
 * decided as the real numbers the doubles stand for say, not as rounding happens to fall.
 *
 * Three checks, cheapest first, each naming the edges it finds:
 * 1. a vertex repeated (not in a row): the edges leaving both copies touch there;
 * 2. two neighbours folding back onto each other (collinear, leaving their shared vertex in the same
 *    direction): they overlap;
 * 3. any other meeting (crossing, or a vertex on another edge, or collinear overlap), by the
 *    Shamos–Hoey sweep: the vertices in (x, y) order, the edges the sweep line crosses kept in a
 *    balanced tree in their order along it, each pair of edges tested when they become neighbours in
 *    that order. With checks 1 and 2 passed, two neighbours of the ring share only their vertex, so
 *    they are never reported; the first meeting of any other pair, in sweep order, has its two edges
 *    (or two that meet at the same point) next to each other in the tree before the sweep passes it.
 */

/**
 * Why the ring is not simple, or undefined when it is. The ring has at least 3 vertices and none
 * equal to the next (nor the last to the first): a parsed ring's repeats in a row are dropped first.
 */
export function selfIntersection(xs: readonly number[], ys: readonly number[]): string | undefined {
  const n = xs.length;
  // Vertices in sweep order: by x, then y. Two equal in a row are a repeated vertex.
  const indexes = new Array<number>(n);
  for (let i = 0; i < n; i++) indexes[i] = i;
  const order = Int32Array.from(indexes.sort((a, b) => xs[a] - xs[b] || ys[a] - ys[b]));
  for (let k = 1; k < n; k++) {
    const a = order[k - 1];
    const b = order[k];
    if (xs[a] === xs[b] && ys[a] === ys[b]) return crossOrTouch(a, b);
  }
  for (let v = 0; v < n; v++) {
    const before = v === 0 ? n - 1 : v - 1;
    const after = v + 1 === n ? 0 : v + 1;
    const [vx, vy, bx, by, ax, ay] = [xs[v], ys[v], xs[before], ys[before], xs[after], ys[after]];
    if (orientation(vx, vy, bx, by, ax, ay) === 0 && (bx - vx) * (ax - vx) + (by - vy) * (ay - vy) > 0) {
      // Edge `before` ends at v, edge v leaves it.
      return `edges ${Math.min(before, v) + 1} and ${Math.max(before, v) + 1} overlap`;
    }
  }
  return new Sweep(xs, ys, order).run();
}

/**
 * > 0 when a, b, c turn counter-clockwise (c left of the line from a to b), < 0 clockwise, 0 when
 * collinear; exact (robust-predicates' orient2d, whose sign is the opposite).
 */
function orientation(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return -orient2d(ax, ay, bx, by, cx, cy);
}

function crossOrTouch(a: number, b: number): string {
  return `edges ${Math.min(a, b) + 1} and ${Math.max(a, b) + 1} cross or touch`;
}

const NONE = -1;

/** The sweep over one ring; the tree is a treap over edge numbers (its links in typed arrays). */
class Sweep {
  private readonly n: number;
  /** Edge e's first and last vertex in sweep order. */
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly up: Int32Array;
  private readonly lower: Int32Array;
  private readonly higher: Int32Array;
  private readonly priority: Float64Array;
  private root = NONE;

  constructor(
    private readonly xs: readonly number[],
    private readonly ys: readonly number[],
    private readonly order: Int32Array,
  ) {
    const n = xs.length;
    this.n = n;
    const rank = new Int32Array(n);
    for (let k = 0; k < n; k++) rank[order[k]] = k;
    this.left = new Int32Array(n);
    this.right = new Int32Array(n);
    for (let e = 0; e < n; e++) {
      const f = e + 1 === n ? 0 : e + 1;
      [this.left[e], this.right[e]] = rank[e] < rank[f] ? [e, f] : [f, e];
    }
    this.up = new Int32Array(n).fill(NONE);
    this.lower = new Int32Array(n).fill(NONE);
    this.higher = new Int32Array(n).fill(NONE);
    // Random priorities: the tree's depth is O(log n) whatever order the ring inserts its edges in
    // (xorshift from a random seed: Math.random per edge cost more than the rest of the set-up).
    this.priority = new Float64Array(n);
    let state = (Math.random() * 0x7fffffff) | 1;
    for (let e = 0; e < n; e++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      this.priority[e] = state >>> 0;
    }
  }

  run(): string | undefined {
    const { n, order, left, right } = this;
    for (let k = 0; k < n; k++) {
      const v = order[k];
      const before = v === 0 ? n - 1 : v - 1;
      // The edges ending at v leave the line first (their neighbours become each other's), then those starting there join it.
      for (let e = before, m = 0; m < 2; e = v, m++) {
        if (right[e] !== v) continue;
        const below = this.neighbour(e, this.lower, this.higher);
        const above = this.neighbour(e, this.higher, this.lower);
        this.remove(e);
        const found = this.check(below, above);
        if (found) return found;
      }
      for (let e = before, m = 0; m < 2; e = v, m++) {
        if (left[e] !== v) continue;
        const found = this.insert(e) ?? this.check(this.neighbour(e, this.lower, this.higher), e) ?? this.check(e, this.neighbour(e, this.higher, this.lower));
        if (found) return found;
      }
    }
    return undefined;
  }

  /** Edges a and b (either NONE) meet where the ring does not allow it. */
  private check(a: number, b: number): string | undefined {
    if (a === NONE || b === NONE) return undefined;
    const { n, xs, ys } = this;
    // Neighbours in the ring share one vertex and, with no fold (checked before), nothing else.
    if (b === (a + 1) % n || a === (b + 1) % n) return undefined;
    const a2 = (a + 1) % n;
    const b2 = (b + 1) % n;
    return segmentsMeet(xs[a], ys[a], xs[a2], ys[a2], xs[b], ys[b], xs[b2], ys[b2]) ? crossOrTouch(a, b) : undefined;
  }

  /**
   * Edge s, which starts at the current vertex p, is above edge t (> 0) or below it (< 0) where the
   * sweep line crosses them; 0 when p lies on t (another edge through the vertex: they touch).
   */
  private compare(s: number, t: number): number {
    const { xs, ys, left, right } = this;
    const p = left[s];
    if (left[t] === p) {
      // Both leave p: by their other ends (collinear would be a fold, refused before).
      return orientation(xs[p], ys[p], xs[right[t]], ys[right[t]], xs[right[s]], ys[right[s]]);
    }
    // t runs from its left end to its right end, left to right (or upwards): its left side is above it.
    return orientation(xs[left[t]], ys[left[t]], xs[right[t]], ys[right[t]], xs[p], ys[p]);
  }

  /** Puts e in the tree; a message when its vertex lies on an edge found on the way. */
  private insert(e: number): string | undefined {
    const { up, lower, higher, priority } = this;
    let parent = NONE;
    let node = this.root;
    let side = 0;
    while (node !== NONE) {
      side = this.compare(e, node);
      if (side === 0) return crossOrTouch(e, node);
      parent = node;
      node = side > 0 ? higher[node] : lower[node];
    }
    up[e] = parent;
    lower[e] = NONE;
    higher[e] = NONE;
    if (parent === NONE) this.root = e;
    else if (side > 0) higher[parent] = e;
    else lower[parent] = e;
    while (up[e] !== NONE && priority[up[e]] < priority[e]) this.rotateUp(e);
    return undefined;
  }

  private remove(e: number): void {
    const { lower, higher, priority } = this;
    // Down to a leaf, by rotating up its child of higher priority, then cut off.
    while (lower[e] !== NONE || higher[e] !== NONE) {
      const l = lower[e];
      const h = higher[e];
      this.rotateUp(h === NONE || (l !== NONE && priority[l] > priority[h]) ? l : h);
    }
    this.replace(e, NONE);
  }

  /** The next edge below (`toward` = lower) or above (`toward` = higher) e in the tree's order. */
  private neighbour(e: number, toward: Int32Array, away: Int32Array): number {
    const { up } = this;
    if (toward[e] !== NONE) {
      let node = toward[e];
      while (away[node] !== NONE) node = away[node];
      return node;
    }
    let node = e;
    while (up[node] !== NONE && toward[up[node]] === node) node = up[node];
    return up[node];
  }

  /** Rotates node x above its parent. */
  private rotateUp(x: number): void {
    const { up, lower, higher } = this;
    const p = up[x];
    if (lower[p] === x) {
      lower[p] = higher[x];
      if (higher[x] !== NONE) up[higher[x]] = p;
      higher[x] = p;
    } else {
      higher[p] = lower[x];
      if (lower[x] !== NONE) up[lower[x]] = p;
      lower[x] = p;
    }
    this.replace(p, x);
    up[p] = x;
  }

  /** Puts `by` (or nothing) where `node` hangs from its parent (or at the root). */
  private replace(node: number, by: number): void {
    const { up, lower } = this;
    const parent = up[node];
    if (by !== NONE) up[by] = parent;
    if (parent === NONE) this.root = by;
    else if (lower[parent] === node) lower[parent] = by;
    else this.higher[parent] = by;
  }
}

/** c lies within the bounding box of segment a-b (with a-b-c collinear: on the segment). */
function withinSegmentBox(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean {
  return Math.min(ax, bx) <= cx && cx <= Math.max(ax, bx) && Math.min(ay, by) <= cy && cy <= Math.max(ay, by);
}

/** Segments a-b and c-d share a point (touching included), exactly. */
export function segmentsMeet(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): boolean {
  const o1 = Math.sign(orientation(ax, ay, bx, by, cx, cy));
  const o2 = Math.sign(orientation(ax, ay, bx, by, dx, dy));
  const o3 = Math.sign(orientation(cx, cy, dx, dy, ax, ay));
  const o4 = Math.sign(orientation(cx, cy, dx, dy, bx, by));
  if (o1 !== o2 && o3 !== o4 && o1 !== 0 && o2 !== 0 && o3 !== 0 && o4 !== 0) return true;
  return (
    (o1 === 0 && withinSegmentBox(ax, ay, bx, by, cx, cy)) ||
    (o2 === 0 && withinSegmentBox(ax, ay, bx, by, dx, dy)) ||
    (o3 === 0 && withinSegmentBox(cx, cy, dx, dy, ax, ay)) ||
    (o4 === 0 && withinSegmentBox(cx, cy, dx, dy, bx, by))
  );
}
