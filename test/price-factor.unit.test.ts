import { describe, expect, it } from 'vitest';
import { isValidPriceVector, priceFactor } from '../src/domain/pricing.js';

describe('price factor', () => {
  it('is 1 + price_vector/100 without float noise', () => {
    expect(priceFactor(0)).toBe(1);
    expect(priceFactor(12.5)).toBe(1.125);
    expect(priceFactor(7.1)).toBe(1.071);
    expect(priceFactor(-7.3)).toBe(0.927);
    expect(priceFactor(100)).toBe(2);
  });

  it('accepts vectors greater than -100 and at most 100', () => {
    expect(isValidPriceVector(-100)).toBe(false);
    expect(isValidPriceVector(-99.99)).toBe(true);
    expect(isValidPriceVector(100)).toBe(true);
    expect(isValidPriceVector(100.01)).toBe(false);
    expect(isValidPriceVector(Number.NaN)).toBe(false);
  });
});
