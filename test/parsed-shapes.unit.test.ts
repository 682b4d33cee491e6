import { describe, expect, it } from 'vitest';
import { parsedPolygon } from '../src/contract/parsed-shapes.js';
import { FilterError, parsePolygon } from '../src/domain/project-filters.js';

/*
 * src/contract/parsed-shapes.ts keeps each `polygon=` text's parse: the same text gives the same shape
 * object (so the search keeps its test and its cache key with it), equal to a fresh parse, frozen so
 * that no request can change it for the next; a refused text is refused each time, with its message.
 */

const STAR = Array.from({ length: 50 }, (_, k) => {
  const angle = (2 * Math.PI * k) / 50;
  const r = k % 2 === 0 ? 0.06 : 0.035;
  return `${55.27 + r * Math.cos(angle)},${25.2 + r * Math.sin(angle)}`;
}).join(',');

function refusal(text: string): string {
  try {
    parsedPolygon(text);
  } catch (error) {
    if (error instanceof FilterError) return `${error.parameter}: ${error.message}`;
    throw error;
  }
  throw new Error(`expected ${text} to be refused`);
}

describe('parsed polygons', () => {
  it('the same text gives the same shape, equal to a fresh parse', () => {
    const shape = parsedPolygon(STAR);
    expect(parsedPolygon(STAR)).toBe(shape);
    expect(shape).toEqual(parsePolygon(STAR));
    expect(parsedPolygon(`${STAR};55.27,25.19,55.28,25.2,55.27,25.21`)).not.toBe(shape);
  });

  it('a kept shape is frozen, to its rings\u2019 coordinates', () => {
    const shape = parsedPolygon(STAR);
    const ring = shape.polygons[0].outer;
    for (const part of [shape, shape.box, shape.polygons, shape.polygons[0], ring, ring.xs, ring.ys, ring.box]) expect(Object.isFrozen(part)).toBe(true);
    expect(() => {
      ring.xs[0] = 0;
    }).toThrow(TypeError);
    expect(parsedPolygon(STAR).polygons[0].outer.xs[0]).toBe(parsePolygon(STAR).polygons[0].outer.xs[0]);
  });

  it('a refused text is refused each time with its message, and not kept', () => {
    const bow = '55,25,55.1,25.1,55.1,25,55,25.1';
    const first = refusal(bow);
    expect(first).toMatch(/^polygon: polygon must not intersect itself/);
    expect(refusal(bow)).toBe(first);
    expect(refusal('55,25,55.1')).toMatch(/odd count/);
  });
});
