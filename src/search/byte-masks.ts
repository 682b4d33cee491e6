/*
 * Loops over a search's masks: one byte per project, 0 or 1. V8 compiles a loop over bytes into one
 * load and store per byte; read as 32-bit words, the same loop does four projects a step (the AND of
 * words of 0/1 bytes is their bytes' AND, and a word's bytes are summed by one multiplication;
 * docs/performance.md, "Mask loops four projects a step"). Words need both arrays at a byte offset
 * that is a multiple of four, which the search's own buffers and the snapshot's columns are; otherwise
 * the byte loop. The bound
 * tests pack four answers into a word's bytes in little-endian order: on a big-endian host they take
 * the byte loop too (AND, counts and skips do not depend on the byte order).
 */

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

const aligned = (a: ArrayBufferView, b: ArrayBufferView) => ((a.byteOffset | b.byteOffset) & 3) === 0;
const wordsOf = (bytes: Uint8Array, words: number) => new Uint32Array(bytes.buffer, bytes.byteOffset, words);

/**
 * mask[i] &= bytes[i] for every i of mask (bytes at least as long, 0 or 1 each); with `inverted`,
 * mask[i] &= 1 - bytes[i] (keeps the projects whose byte is 0).
 */
export function andInto(mask: Uint8Array, bytes: Uint8Array, inverted = false): void {
  const flip = inverted ? 1 : 0;
  let i = 0;
  if (aligned(mask, bytes)) {
    const words = mask.length >>> 2;
    const into = wordsOf(mask, words);
    const from = wordsOf(bytes, words);
    const flipWord = flip * 0x01010101;
    for (let j = 0; j < words; j++) into[j] &= from[j] ^ flipWord;
    i = words << 2;
  }
  for (; i < mask.length; i++) mask[i] &= bytes[i] ^ flip;
}

/** How many bytes are 1 (each 0 or 1). */
export function countOnes(bytes: Uint8Array): number {
  let total = 0;
  let i = 0;
  if ((bytes.byteOffset & 3) === 0) {
    const words = bytes.length >>> 2;
    const from = wordsOf(bytes, words);
    // The top byte of w * 0x01010101 is the sum of w's four bytes (at most 4: no carry between them).
    for (let j = 0; j < words; j++) total += Math.imul(from[j], 0x01010101) >>> 24;
    i = words << 2;
  }
  for (; i < bytes.length; i++) total += bytes[i];
  return total;
}

/*
 * The bound tests: whether values[p] meets `bound`, at least (atLeast) or at most it; NaN never does.
 * Four answers packed into a word's bytes by atMost4/atLeast4 (small enough for V8 to inline: the
 * same speed as written out in each loop); the direction is chosen outside the loops, as a compare of
 * both ends per value costs more (docs/performance.md, "Mask loops four projects a step").
 */

const atMost4 = (values: Float64Array, p: number, bound: number) =>
  +(values[p] <= bound) | (+(values[p + 1] <= bound) << 8) | (+(values[p + 2] <= bound) << 16) | (+(values[p + 3] <= bound) << 24);
const atLeast4 = (values: Float64Array, p: number, bound: number) =>
  +(values[p] >= bound) | (+(values[p + 1] >= bound) << 8) | (+(values[p + 2] >= bound) << 16) | (+(values[p + 3] >= bound) << 24);
const meets = (value: number, atLeast: boolean, bound: number) => +(atLeast ? value >= bound : value <= bound);

/** The words the bound tests read `mask` as (none on a big-endian host or at an offset not a multiple of four). */
const boundWords = (mask: Uint8Array) => (LITTLE_ENDIAN && (mask.byteOffset & 3) === 0 ? wordsOf(mask, mask.length >>> 2) : new Uint32Array(0));

/** mask[p] &= (values[p] meets the bound) for every p of mask. */
export function keepMeeting(mask: Uint8Array, values: Float64Array, atLeast: boolean, bound: number): void {
  const into = boundWords(mask);
  if (atLeast) for (let j = 0; j < into.length; j++) into[j] &= atLeast4(values, j << 2, bound);
  else for (let j = 0; j < into.length; j++) into[j] &= atMost4(values, j << 2, bound);
  for (let p = into.length << 2; p < mask.length; p++) mask[p] &= meets(values[p], atLeast, bound);
}

/** How many p with mask[p] = 1 have values[p] meeting the bound. */
export function countMeeting(mask: Uint8Array, values: Float64Array, atLeast: boolean, bound: number): number {
  const from = boundWords(mask);
  let total = 0;
  // The top byte of w * 0x01010101 is the sum of w's four bytes (as countOnes).
  if (atLeast) for (let j = 0; j < from.length; j++) total += Math.imul(from[j] & atLeast4(values, j << 2, bound), 0x01010101) >>> 24;
  else for (let j = 0; j < from.length; j++) total += Math.imul(from[j] & atMost4(values, j << 2, bound), 0x01010101) >>> 24;
  for (let p = from.length << 2; p < mask.length; p++) total += mask[p] & meets(values[p], atLeast, bound);
  return total;
}

/** into[p] |= mask[p] & (values[p] meets the bound) for every p of mask; `into` at least as long. */
export function markMeeting(into: Uint8Array, mask: Uint8Array, values: Float64Array, atLeast: boolean, bound: number): void {
  const from = boundWords(mask);
  const to = aligned(into, mask) ? wordsOf(into, from.length) : new Uint32Array(0);
  if (atLeast) for (let j = 0; j < to.length; j++) to[j] |= from[j] & atLeast4(values, j << 2, bound);
  else for (let j = 0; j < to.length; j++) to[j] |= from[j] & atMost4(values, j << 2, bound);
  for (let p = to.length << 2; p < mask.length; p++) into[p] |= mask[p] & meets(values[p], atLeast, bound);
}

/**
 * Clears mask[i] where it is 1 and test(i) fails, asking only the projects still in: four bytes at a
 * time are skipped while they are all 0 (for a mask with few projects left).
 */
export function keepWhere(mask: Uint8Array, test: (i: number) => boolean): void {
  let i = 0;
  if ((mask.byteOffset & 3) === 0) {
    const words = mask.length >>> 2;
    const from = wordsOf(mask, words);
    for (let j = 0; j < words; j++) {
      if (from[j] === 0) continue;
      for (let k = j << 2; k < (j + 1) << 2; k++) if (mask[k] === 1 && !test(k)) mask[k] = 0;
    }
    i = words << 2;
  }
  for (; i < mask.length; i++) if (mask[i] === 1 && !test(i)) mask[i] = 0;
}
