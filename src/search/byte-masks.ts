/*
 * Loops over a search's masks: one byte per project, 0 or 1. V8 compiles a loop over bytes into one
 * load and store per byte; read as 32-bit words, the same loop does four projects a step (the AND of
 * words of 0/1 bytes is their bytes' AND, and a word's bytes are summed by one multiplication). At
 * 20,000 projects: AND of two masks 21 -> 6 µs, a count 14 -> 4 µs, a price column's test 24 -> 14 µs
 * (docs/performance.md, stop 44). Words need both arrays at a byte offset that is a multiple of four,
 * which the search's own buffers and the snapshot's columns are; otherwise the byte loop. The bound
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

/** mask[p] &= (values[p] <= bound) for every p of mask; NaN never is. */
export function keepAtMost(mask: Uint8Array, values: Float64Array, bound: number): void {
  let p = 0;
  if (LITTLE_ENDIAN && (mask.byteOffset & 3) === 0) {
    const words = mask.length >>> 2;
    const into = wordsOf(mask, words);
    for (let j = 0; j < words; j++, p += 4) {
      into[j] &= +(values[p] <= bound) | (+(values[p + 1] <= bound) << 8) | (+(values[p + 2] <= bound) << 16) | (+(values[p + 3] <= bound) << 24);
    }
  }
  for (; p < mask.length; p++) mask[p] &= +(values[p] <= bound);
}

/** mask[p] &= (values[p] >= bound) for every p of mask; NaN never is. */
export function keepAtLeast(mask: Uint8Array, values: Float64Array, bound: number): void {
  let p = 0;
  if (LITTLE_ENDIAN && (mask.byteOffset & 3) === 0) {
    const words = mask.length >>> 2;
    const into = wordsOf(mask, words);
    for (let j = 0; j < words; j++, p += 4) {
      into[j] &= +(values[p] >= bound) | (+(values[p + 1] >= bound) << 8) | (+(values[p + 2] >= bound) << 16) | (+(values[p + 3] >= bound) << 24);
    }
  }
  for (; p < mask.length; p++) mask[p] &= +(values[p] >= bound);
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
