/** Decimal exponents beyond this are refused rather than expanded (no gold has 400 digits). */
const MAX_EXPONENT = 400;

/**
 * The exact integer a decimal text denotes: "123", "+123", " 123 ", "123.0",
 * "1.23e2"; undefined for anything else, including a non-integer ("12.5").
 */
function exactInteger(text: string): bigint | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  const exponent = Number(exponentText) - fraction.length;
  if (Math.abs(exponent) > MAX_EXPONENT) return undefined;
  let digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  if (exponent >= 0) digits += '0'.repeat(exponent);
  else {
    const dropped = digits.slice(exponent);
    if (/[^0]/.test(dropped)) return undefined;
    digits = digits.slice(0, exponent) || '0';
  }
  const value = BigInt(digits);
  return sign === '-' ? -value : value;
}

/**
 * Whether a script's output or a raw answer is the gold answer, an integer of
 * any size given as its decimal string. Accepted: a number whose exact value
 * is that integer, or a string holding it in decimal (a BigInt comes out of
 * the sandbox as one); "123.0" and "1.23e2" are accepted as the integer they
 * denote, since R2's prompt speaks of floats. Comparison is exact: never via
 * a double.
 */
export function matchesGold(value: unknown, gold: string): boolean {
  const expected = BigInt(gold);
  if (typeof value === 'number') return Number.isInteger(value) && BigInt(value) === expected;
  if (typeof value === 'bigint') return value === expected;
  if (typeof value !== 'string') return false;
  return exactInteger(value) === expected;
}
