import { PolicyRule } from '../apis/rbac/types';
import { RuleAttributes, apiGroupMatches, nonResourceURLMatches, resourceMatches, resourceNameMatches, verbMatches } from '../authorization/rbac/rule-matching';

/**
 * The attribute space of a diff, cut into finitely many classes. For each dimension (verb,
 * API group, resource and subresource, resource name, URL) every value a rule names is a
 * class of its own, and the values no rule names form one more class, represented by a value
 * no rule can name. Two requests in the same class are allowed by exactly the same rules, so
 * comparing one representative per class before and after a change is the exact difference
 * of the decisions over every request. Membership is decided by the authorizer's own
 * matchers (rule-matching), never by a copy of them.
 */

/** A value no rule names: stands for "every value the policy does not name". */
export const OTHER = '\u0000';
const SEP = '\u0001';

export type Dimension = 'verb' | 'apiGroup' | 'resource' | 'resourceName' | 'url';
export const RESOURCE_DIMENSIONS: readonly Dimension[] = ['verb', 'resourceName', 'resource', 'apiGroup'];
export const NON_RESOURCE_DIMENSIONS: readonly Dimension[] = ['verb', 'url'];

/** One class per dimension; resource requests have no url, non-resource ones only verb and url. */
export interface Atom {
  resourceRequest: boolean;
  verb: string;
  apiGroup: string;
  /** `resource<SEP>subresource`, either side possibly OTHER, subresource '' for none. */
  resource: string;
  resourceName: string;
  /** `e:<path>` (a path a rule names), `p:<prefix>` (under a named prefix, not under a longer one), or `o` (anything else). */
  url: string;
}

export const atomKey = (a: Atom): string =>
  a.resourceRequest ? `r${SEP}${a.verb}${SEP}${a.apiGroup}${SEP}${a.resource}${SEP}${a.resourceName}` : `n${SEP}${a.verb}${SEP}${a.url}`;

export const resourceClass = (resource: string, subresource: string) => `${resource}${SEP}${subresource}`;
export function splitResourceClass(value: string): [string, string] {
  const at = value.indexOf(SEP);
  return [value.slice(0, at), value.slice(at + 1)];
}

/** The request attributes that represent an atom, for the rule matchers. */
export function attributesOf(a: Atom): RuleAttributes {
  if (!a.resourceRequest) {
    const path = a.url === 'o' ? `/${OTHER}` : a.url.startsWith('e:') ? a.url.slice(2) : `${a.url.slice(2)}${OTHER}`;
    return { verb: a.verb, isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '', name: '' };
  }
  const [resource, subresource] = splitResourceClass(a.resource);
  return { verb: a.verb, isResourceRequest: true, path: '', apiGroup: a.apiGroup, resource, subresource, name: a.resourceName };
}

/** The classes of each dimension, from the rules that take part in a diff. */
export class Universe {
  readonly verbs = new Set<string>([OTHER]);
  readonly apiGroups = new Set<string>([OTHER]);
  readonly resources = new Set<string>([resourceClass(OTHER, ''), resourceClass(OTHER, OTHER)]);
  readonly resourceNames = new Set<string>([OTHER]);
  readonly urls = new Set<string>(['o']);

  add(rule: PolicyRule): void {
    for (const verb of list(rule.verbs)) if (verb !== '*') this.verbs.add(verb);
    for (const group of list(rule.apiGroups)) if (group !== '*') this.apiGroups.add(group);
    for (const token of list(rule.resources)) {
      if (token === '*') continue;
      const slash = token.indexOf('/');
      if (slash < 0) this.resources.add(resourceClass(token, ''));
      else if (token.startsWith('*/')) this.resources.add(resourceClass(OTHER, token.slice(2)));
      else {
        this.resources.add(resourceClass(token.slice(0, slash), token.slice(slash + 1)));
        this.resources.add(resourceClass(OTHER, token.slice(slash + 1)));
      }
    }
    for (const name of list(rule.resourceNames)) this.resourceNames.add(name);
    for (const url of list(rule.nonResourceURLs)) {
      if (url === '*') continue;
      if (url.endsWith('*')) this.urls.add(`p:${url.replace(/\*+$/, '')}`);
      else this.urls.add(`e:${url}`);
    }
  }

  /** Every class of a rule, as atoms, calling `fn` for each; returns how many. */
  expand(rule: PolicyRule, fn: (atom: Atom) => void): number {
    let count = 0;
    const verbs = [...this.verbs].filter((v) => verbMatches(rule, v));
    if (list(rule.resources).length) {
      const groups = [...this.apiGroups].filter((g) => apiGroupMatches(rule, g));
      const resources = [...this.resources].filter((r) => {
        const [resource, subresource] = splitResourceClass(r);
        return resourceMatches(rule, subresource ? `${resource}/${subresource}` : resource, subresource);
      });
      const names = [...this.resourceNames].filter((n) => resourceNameMatches(rule, n));
      for (const verb of verbs)
        for (const apiGroup of groups)
          for (const resource of resources)
            for (const resourceName of names) {
              fn({ resourceRequest: true, verb, apiGroup, resource, resourceName, url: '' });
              count++;
            }
    }
    if (list(rule.nonResourceURLs).length) {
      const urls = [...this.urls].filter((u) => nonResourceURLMatches(rule, attributesOf({ resourceRequest: false, verb: '', apiGroup: '', resource: '', resourceName: '', url: u }).path));
      for (const verb of verbs)
        for (const url of urls) {
          fn({ resourceRequest: false, verb, apiGroup: '', resource: '', resourceName: '', url });
          count++;
        }
    }
    return count;
  }

  /** The named classes of a dimension that class `wide` stands over (its `*`), for excepts and compaction. */
  covered(dimension: Dimension, wide: string): string[] {
    switch (dimension) {
      case 'verb':
        return wide === OTHER ? [...this.verbs].filter((v) => v !== OTHER) : [];
      case 'apiGroup':
        return wide === OTHER ? [...this.apiGroups].filter((v) => v !== OTHER) : [];
      case 'resourceName':
        return wide === OTHER ? [...this.resourceNames].filter((v) => v !== OTHER) : [];
      case 'resource': {
        const [resource, subresource] = splitResourceClass(wide);
        if (resource !== OTHER) return [];
        return [...this.resources].filter((r) => {
          if (r === wide) return false;
          const [x, s] = splitResourceClass(r);
          // `*`: named resources; `*/s`: s of named resources; `*/*`: every subresource class.
          if (subresource === '') return s === '';
          if (subresource === OTHER) return s !== '';
          return s === subresource && x !== OTHER;
        });
      }
      case 'url': {
        if (wide === 'o') return [...this.urls].filter((u) => u !== 'o');
        if (!wide.startsWith('p:')) return [];
        const prefix = wide.slice(2);
        return [...this.urls].filter((u) => u !== wide && u !== 'o' && u.slice(2).startsWith(prefix));
      }
    }
  }
}

const list = (values: readonly string[] | null | undefined): readonly string[] => (Array.isArray(values) ? (values as readonly string[]) : []);

/** How a class reads in an answer: OTHER as `*` (with the named values it leaves out listed beside it). */
export function renderClass(dimension: Dimension, value: string): string {
  switch (dimension) {
    case 'resource': {
      const [resource, subresource] = splitResourceClass(value);
      const r = resource === OTHER ? '*' : resource;
      if (subresource === '') return r;
      return `${r}/${subresource === OTHER ? '*' : subresource}`;
    }
    case 'url':
      return value === 'o' ? '*' : value.startsWith('e:') ? value.slice(2) : `${value.slice(2)}*`;
    default:
      return value === OTHER ? '*' : value;
  }
}
