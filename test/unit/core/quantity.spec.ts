import { parseQuantity, quantityError } from '../../../src/core/kinds/quantity';

const FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX = "unable to parse quantity's suffix";

describe('quantities in core kinds (the one resource.Quantity parser)', () => {
  it.each([
    ['1Gi', 1],
    ['100m', 1],
    ['1.5', 1],
    ['2e3', 1],
    ['0', 0],
    ['0.000Mi', 0],
    ['-1k', -1],
    [5, 1],
    [0, 0],
    [1e21, 1],
    [-0.5, -1],
  ])('%p parses with sign %p', (value, sign) => {
    expect(parseQuantity(value)).toEqual({ sign });
  });

  it.each([
    ['', FORMAT],
    ['abc', FORMAT],
    ['1 Gi', FORMAT],
    ['Gi', FORMAT],
    ['1Qi', FORMAT],
    ['1ki', SUFFIX],
    ['1iK', SUFFIX],
    [null, FORMAT],
    [true, FORMAT],
    [Number.POSITIVE_INFINITY, FORMAT],
  ])('%p is refused: %s', (value, message) => {
    expect(quantityError(value)).toBe(message);
  });
});
