import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from './cost';
import { findAll, findFirst, RegexSyntaxError } from './regex';

/** kube's cost of a regex over a string: traversal cost of the pattern times that of the input. */
function chargeRegex(text: string, pattern: string): void {
  chargeCost(Math.ceil(pattern.length * 0.1) * Math.ceil(text.length * 0.1));
}

function illegal(err: unknown): never {
  if (err instanceof RegexSyntaxError) throw new Error(`Illegal regex: ${err.message}`);
  throw err;
}

/** kube's regex library: `find` (first match or '') and `findAll` (optionally limited). */
export function registerRegexFunctions(env: Environment): void {
  env.registerFunction('string.find(string): string', (text: string, pattern: string) => {
    chargeRegex(text, pattern);
    try {
      return findFirst(text, pattern);
    } catch (err) {
      return illegal(err);
    }
  });
  env.registerFunction('string.findAll(string): list<string>', (text: string, pattern: string) => {
    chargeRegex(text, pattern);
    try {
      return findAll(text, pattern);
    } catch (err) {
      return illegal(err);
    }
  });
  env.registerFunction('string.findAll(string, int): list<string>', (text: string, pattern: string, limit: bigint) => {
    chargeRegex(text, pattern);
    try {
      return findAll(text, pattern, Number(limit));
    } catch (err) {
      return illegal(err);
    }
  });
}
