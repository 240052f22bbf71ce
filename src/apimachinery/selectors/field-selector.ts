import { SelectorParseError } from './label-selector';

/**
 * Field selectors in kube's grammar (apimachinery fields.ParseSelector): terms
 * `field=value`, `field==value`, `field!=value` joined by `,`; `\` escapes `,`, `=`, `!`
 * and `\` inside values.
 */
export type FieldOperator = 'Equals' | 'DoubleEquals' | 'NotEquals';

export interface FieldRequirement {
  field: string;
  operator: FieldOperator;
  value: string;
}

export class FieldSelector {
  constructor(readonly requirements: FieldRequirement[]) {}

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(fields: Record<string, string>): boolean {
    return this.requirements.every((r) => (r.operator === 'NotEquals' ? fields[r.field] !== r.value : fields[r.field] === r.value));
  }

  /** The value a field must equal, when the selector pins it (e.g. metadata.name). */
  exactValue(field: string): string | undefined {
    const r = this.requirements.find((x) => x.field === field && x.operator !== 'NotEquals');
    return r?.value;
  }
}

function splitTerms(input: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c === '\\' && i + 1 < input.length) {
      current += c + input[i + 1];
      i++;
    } else if (c === ',') {
      terms.push(current);
      current = '';
    } else current += c;
  }
  terms.push(current);
  return terms;
}

function unescape(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\') {
      const n = value[i + 1];
      if (n === undefined || !['\\', ',', '=', '!'].includes(n)) throw new SelectorParseError(`invalid escape sequence in field selector value: ${value}`);
      out += n;
      i++;
    } else if (c === ',' || c === '=') {
      throw new SelectorParseError(`invalid field selector value: unescaped ${c} in ${value}`);
    } else out += c;
  }
  return out;
}

function findOperator(term: string): { index: number; op: FieldOperator; length: number } | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    if (term.startsWith('!=', i)) return { index: i, op: 'NotEquals', length: 2 };
    if (term.startsWith('==', i)) return { index: i, op: 'DoubleEquals', length: 2 };
    if (term[i] === '=') return { index: i, op: 'Equals', length: 1 };
  }
  return undefined;
}

/** Parses a field selector; `supported` lists the fields the kind can be selected by. */
export function parseFieldSelector(input: string | undefined, supported?: readonly string[]): FieldSelector {
  if (!input || !input.trim()) return new FieldSelector([]);
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(input)) {
    if (!term) continue;
    const found = findOperator(term);
    if (!found) throw new SelectorParseError(`invalid selector: '${input}'; can't understand '${term}'`);
    const field = term.slice(0, found.index).trim();
    const value = unescape(term.slice(found.index + found.length));
    if (!field) throw new SelectorParseError(`invalid selector: '${input}'; field name is empty`);
    if (supported && !supported.includes(field)) throw new SelectorParseError(`field label not supported: ${field}`);
    requirements.push({ field, operator: found.op, value });
  }
  return new FieldSelector(requirements);
}
