import { registerDecorator, validateSync, ValidationError } from 'class-validator';
import { isObject, jsonType } from '../../config/config-document';

/**
 * The AuthorizationConfiguration file's shape as class-validator schemas: each field with the
 * Go type kube decodes it into. Checking a document against them gives every finding with its
 * field path; `shapeProblem` words the findings as kube's strict JSON decoding does.
 */

type SchemaClass = new () => object;

/** What a field holds, in Go's words for the messages. */
type GoKind = { scalar: 'string' | 'bool' } | { duration: true } | { struct: () => SchemaClass } | { list: () => SchemaClass };

/** The nested schema of each struct or list field, for building instances (no class-transformer needed). */
const NESTED = new Map<SchemaClass, Map<string, { schema: () => SchemaClass; list: boolean }>>();
/** Go's struct name of each schema class. */
const GO_NAMES = new Map<SchemaClass, string>();

const goTypeOf = (kind: GoKind): string => {
  if ('scalar' in kind) return kind.scalar;
  if ('duration' in kind) return 'string';
  if ('struct' in kind) return `v1.${GO_NAMES.get(kind.struct())}`;
  return `[]v1.${GO_NAMES.get(kind.list())}`;
};

function fits(kind: GoKind, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if ('scalar' in kind) return kind.scalar === 'bool' ? typeof value === 'boolean' : typeof value === 'string';
  if ('duration' in kind) return typeof value === 'string';
  if ('struct' in kind) return isObject(value);
  return Array.isArray(value) && value.every((item) => item === null || isObject(item));
}

/** A field decoded into Go type `kind`; the constraint's message is the Go type (worded later). */
function GoField(kind: GoKind): PropertyDecorator {
  return (target, property) => {
    const owner = target.constructor as SchemaClass;
    if ('struct' in kind || 'list' in kind) {
      const nested = NESTED.get(owner) ?? new Map<string, { schema: () => SchemaClass; list: boolean }>();
      nested.set(String(property), { schema: 'struct' in kind ? kind.struct : kind.list, list: 'list' in kind });
      NESTED.set(owner, nested);
    }
    registerDecorator({
      name: 'duration' in kind ? 'goDuration' : 'goType',
      target: owner,
      propertyName: String(property),
      validator: {
        validate: (value: unknown) => fits(kind, value),
        defaultMessage: () => goTypeOf(kind),
      },
    });
    // Nested instances are validated through their own decorators.
    if ('struct' in kind || 'list' in kind) {
      registerDecorator({
        name: 'goNested',
        target: owner,
        propertyName: String(property),
        validator: {
          validate: (value: unknown) => {
            const items = Array.isArray(value) ? value : [value];
            return (items as unknown[]).every((item) => !(item instanceof Object) || validateSync(item, STRICT).length === 0);
          },
          defaultMessage: () => 'nested',
        },
      });
    }
  };
}

const STRICT = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false, validationError: { target: false, value: true } };

function GoStruct(name: string): ClassDecorator {
  return (target) => {
    GO_NAMES.set(target as unknown as SchemaClass, name);
  };
}

@GoStruct('WebhookConnectionInfo')
class WebhookConnectionInfoSchema {
  @GoField({ scalar: 'string' }) type?: string;
  @GoField({ scalar: 'string' }) kubeConfigFile?: string;
}

@GoStruct('WebhookMatchCondition')
class WebhookMatchConditionSchema {
  @GoField({ scalar: 'string' }) expression?: string;
}

@GoStruct('WebhookConfiguration')
class WebhookConfigurationSchema {
  @GoField({ duration: true }) authorizedTTL?: string;
  @GoField({ scalar: 'bool' }) cacheAuthorizedRequests?: boolean;
  @GoField({ duration: true }) unauthorizedTTL?: string;
  @GoField({ scalar: 'bool' }) cacheUnauthorizedRequests?: boolean;
  @GoField({ duration: true }) timeout?: string;
  @GoField({ scalar: 'string' }) subjectAccessReviewVersion?: string;
  @GoField({ scalar: 'string' }) matchConditionSubjectAccessReviewVersion?: string;
  @GoField({ scalar: 'string' }) failurePolicy?: string;
  @GoField({ struct: () => WebhookConnectionInfoSchema }) connectionInfo?: object;
  @GoField({ list: () => WebhookMatchConditionSchema }) matchConditions?: object[];
}

@GoStruct('AuthorizerConfiguration')
class AuthorizerConfigurationSchema {
  @GoField({ scalar: 'string' }) type?: string;
  @GoField({ scalar: 'string' }) name?: string;
  @GoField({ struct: () => WebhookConfigurationSchema }) webhook?: object;
}

@GoStruct('AuthorizationConfiguration')
export class AuthorizationConfigurationSchema {
  @GoField({ scalar: 'string' }) apiVersion?: string;
  @GoField({ scalar: 'string' }) kind?: string;
  @GoField({ list: () => AuthorizerConfigurationSchema }) authorizers?: object[];
}

/** An instance of `schema` holding the document's fields (every key an own property, `__proto__` included). */
function instantiate(schema: SchemaClass, raw: Record<string, unknown>): object {
  const instance = new schema() as Record<string, unknown>;
  const nested = NESTED.get(schema);
  for (const [field, value] of Object.entries(raw)) {
    const child = nested?.get(field);
    let held = value;
    if (child && child.list && Array.isArray(value)) held = (value as unknown[]).map((item) => (isObject(item) ? instantiate(child.schema(), item) : item));
    else if (child && !child.list && isObject(value)) held = instantiate(child.schema(), value);
    Object.defineProperty(instance, field, { value: held, enumerable: true, writable: true, configurable: true });
  }
  return instance;
}

/** One finding: its path in the document, the Go struct path and owner, and what is wrong. */
interface Finding {
  path: string;
  structPath: string;
  owner: string;
  /** An unknown field, or the Go type a value did not fit (duration: Go's string of a Duration). */
  problem: { unknown: true } | { goType: string; duration: boolean; value: unknown };
}

function collect(errors: ValidationError[], schema: SchemaClass, path: string, structPath: string, out: Finding[]): void {
  for (const error of errors) {
    const childPath = path ? `${path}.${error.property}` : error.property;
    const childStructPath = structPath ? `${structPath}.${error.property}` : error.property;
    const owner = GO_NAMES.get(schema) ?? '';
    const constraints = error.constraints ?? {};
    if (constraints.whitelistValidation) out.push({ path: childPath, structPath: childStructPath, owner, problem: { unknown: true } });
    else if (constraints.goType || constraints.goDuration) {
      out.push({ path: childPath, structPath: childStructPath, owner, problem: { goType: constraints.goType ?? 'string', duration: !!constraints.goDuration, value: error.value } });
    } else if (constraints.goNested) {
      const child = NESTED.get(schema)?.get(error.property);
      if (!child) continue;
      const value: unknown = error.value;
      const items = Array.isArray(value) ? (value as unknown[]).map((item, i) => [`${childPath}[${i}]`, item] as const) : [[childPath, value] as const];
      for (const [itemPath, item] of items) {
        if (item instanceof Object) collect(validateSync(item, STRICT), child.schema(), itemPath, childStructPath, out);
      }
    }
  }
}

/** The order of every path in the document, depth first, as a decoder meets them. */
function documentOrder(value: unknown, path: string, order: Map<string, number>): void {
  if (Array.isArray(value)) value.forEach((item, i) => documentOrder(item, `${path}[${i}]`, order));
  else if (isObject(value)) {
    for (const [field, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${field}` : field;
      order.set(childPath, order.size);
      documentOrder(child, childPath, order);
    }
  }
}

/**
 * What kube's strict decoding of the document would say, or undefined when it fits: the first
 * value of the wrong type stops decoding (`json: cannot unmarshal ...`); otherwise every unknown
 * field is reported together, in document order.
 */
export function shapeProblem(document: Record<string, unknown>): string | undefined {
  const findings: Finding[] = [];
  collect(validateSync(instantiate(AuthorizationConfigurationSchema, document), STRICT), AuthorizationConfigurationSchema, '', '', findings);
  if (!findings.length) return undefined;
  const order = new Map<string, number>();
  documentOrder(document, '', order);
  findings.sort((a, b) => (order.get(a.path) ?? 0) - (order.get(b.path) ?? 0));
  const mistyped = findings.find((f) => 'goType' in f.problem);
  if (mistyped && 'goType' in mistyped.problem) {
    const { goType, duration, value } = mistyped.problem;
    if (duration) return `json: cannot unmarshal ${jsonType(value)} into Go value of type string`;
    // A list of structs holding something else: Go names the item's type.
    const item = Array.isArray(value) ? (value as unknown[]).find((v) => v !== null && !isObject(v)) : undefined;
    const [found, into] = Array.isArray(value) && goType.startsWith('[]') ? [jsonType(item), goType.slice(2)] : [jsonType(value), goType];
    return `json: cannot unmarshal ${found} into Go struct field ${mistyped.owner}.${mistyped.structPath} of type ${into}`;
  }
  return `strict decoding error: ${findings.map((f) => `unknown field ${JSON.stringify(f.path)}`).join(', ')}`;
}
