import { isQualifiedName, isValidLabelValue } from '../validation/names';

/**
 * Label selectors in kube's string grammar (apimachinery labels.Parse):
 *   key, !key, key=v, key==v, key!=v, key in (a,b), key notin (a,b), key>1, key<1
 * with `,` meaning AND. One parser serves list/watch/deletecollection query parameters and
 * access reviews' rawSelector.
 */
export type LabelOperator = 'Exists' | 'DoesNotExist' | 'Equals' | 'DoubleEquals' | 'NotEquals' | 'In' | 'NotIn' | 'GreaterThan' | 'LessThan';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export class SelectorParseError extends Error {}

export class LabelSelector {
  constructor(readonly requirements: LabelRequirement[]) {}

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, l));
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Equals':
    case 'DoubleEquals':
    case 'In':
      return has && r.values.includes(value);
    case 'NotEquals':
    case 'NotIn':
      return !has || !r.values.includes(value);
    case 'GreaterThan':
    case 'LessThan': {
      if (!has || !/^-?\d+$/.test(value)) return false;
      const n = Number(value);
      const bound = Number(r.values[0]);
      return r.operator === 'GreaterThan' ? n > bound : n < bound;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'Equals':
      return `${r.key}=${r.values[0]}`;
    case 'DoubleEquals':
      return `${r.key}==${r.values[0]}`;
    case 'NotEquals':
      return `${r.key}!=${r.values[0]}`;
    case 'In':
      return `${r.key} in (${r.values.join(',')})`;
    case 'NotIn':
      return `${r.key} notin (${r.values.join(',')})`;
    case 'GreaterThan':
      return `${r.key}>${r.values[0]}`;
    case 'LessThan':
      return `${r.key}<${r.values[0]}`;
  }
}

type Token =
  | { kind: 'ident'; text: string }
  | { kind: 'op'; text: string }
  | { kind: 'comma' }
  | { kind: 'open' }
  | { kind: 'close' }
  | { kind: 'not' };

const SPECIAL = new Set(['=', '!', '(', ')', ',', '<', '>', ' ', '\t', '\n']);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c === ' ' || c === '\t' || c === '\n') {
      i++;
    } else if (c === ',') {
      tokens.push({ kind: 'comma' });
      i++;
    } else if (c === '(') {
      tokens.push({ kind: 'open' });
      i++;
    } else if (c === ')') {
      tokens.push({ kind: 'close' });
      i++;
    } else if (c === '=' && input[i + 1] === '=') {
      tokens.push({ kind: 'op', text: '==' });
      i += 2;
    } else if (c === '!' && input[i + 1] === '=') {
      tokens.push({ kind: 'op', text: '!=' });
      i += 2;
    } else if (c === '=' || c === '<' || c === '>') {
      tokens.push({ kind: 'op', text: c });
      i++;
    } else if (c === '!') {
      tokens.push({ kind: 'not' });
      i++;
    } else {
      let j = i;
      while (j < input.length && !SPECIAL.has(input[j])) j++;
      tokens.push({ kind: 'ident', text: input.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

/** Parses a label selector string; throws SelectorParseError with kube-like messages. */
export function parseLabelSelector(input: string | undefined): LabelSelector {
  if (!input || !input.trim()) return new LabelSelector([]);
  const tokens = tokenize(input);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => tokens[pos++];
  const requirements: LabelRequirement[] = [];

  const readKey = (): string => {
    const t = next();
    if (!t || t.kind !== 'ident') throw new SelectorParseError(`found '${describe(t)}', expected: identifier`);
    const problems = isQualifiedName(t.text);
    if (problems.length) throw new SelectorParseError(`invalid label key "${t.text}": ${problems.join('; ')}`);
    return t.text;
  };
  const checkValue = (value: string) => {
    const problems = isValidLabelValue(value);
    if (problems.length) throw new SelectorParseError(`invalid label value: "${value}": at key: ${problems.join('; ')}`);
  };
  const readValue = (): string => {
    const t = peek();
    if (!t || t.kind === 'comma') return '';
    if (t.kind !== 'ident') throw new SelectorParseError(`found '${describe(t)}', expected: identifier`);
    pos++;
    checkValue(t.text);
    return t.text;
  };
  const readSet = (): string[] => {
    const open = next();
    if (!open || open.kind !== 'open') throw new SelectorParseError(`found '${describe(open)}', expected: '('`);
    const values: string[] = [];
    for (;;) {
      const t = next();
      if (!t) throw new SelectorParseError("found '', expected: ')'");
      if (t.kind === 'close') break;
      if (t.kind === 'comma') {
        if (peek()?.kind === 'comma' || peek()?.kind === 'close') values.push('');
        continue;
      }
      if (t.kind !== 'ident') throw new SelectorParseError(`found '${describe(t)}', expected: ',', ')' or identifier`);
      checkValue(t.text);
      values.push(t.text);
    }
    return values;
  };

  for (;;) {
    const t = peek();
    if (!t) throw new SelectorParseError("found '', expected: !, identifier, or 'end of string'");
    if (t.kind === 'not') {
      pos++;
      requirements.push({ key: readKey(), operator: 'DoesNotExist', values: [] });
    } else {
      const key = readKey();
      const op = peek();
      if (!op || op.kind === 'comma') {
        requirements.push({ key, operator: 'Exists', values: [] });
      } else if (op.kind === 'op') {
        pos++;
        const value = readValue();
        if (op.text === '<' || op.text === '>') {
          if (!/^-?\d+$/.test(value)) throw new SelectorParseError(`for 'Gt', 'Lt' operators, the value must be an integer`);
          requirements.push({ key, operator: op.text === '<' ? 'LessThan' : 'GreaterThan', values: [value] });
        } else {
          const operator: LabelOperator = op.text === '=' ? 'Equals' : op.text === '==' ? 'DoubleEquals' : 'NotEquals';
          requirements.push({ key, operator, values: [value] });
        }
      } else if (op.kind === 'ident' && (op.text === 'in' || op.text === 'notin')) {
        pos++;
        const values = readSet();
        if (values.length === 0) throw new SelectorParseError(`for 'in', 'notin' operators, values set can't be empty`);
        requirements.push({ key, operator: op.text === 'in' ? 'In' : 'NotIn', values });
      } else {
        throw new SelectorParseError(`found '${describe(op)}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    }
    const after = next();
    if (!after) break;
    if (after.kind !== 'comma') throw new SelectorParseError(`found '${describe(after)}', expected: ',' or 'end of string'`);
  }
  return new LabelSelector(requirements);
}

function describe(t: Token | undefined): string {
  if (!t) return '';
  switch (t.kind) {
    case 'ident':
    case 'op':
      return t.text;
    case 'comma':
      return ',';
    case 'open':
      return '(';
    case 'close':
      return ')';
    case 'not':
      return '!';
  }
}
