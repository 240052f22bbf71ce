import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsIn, IsOptional, IsString, ValidateNested, ValidationArguments, ValidationError, validateSync } from 'class-validator';
import * as YAML from 'yaml';
import { aggregateErrors } from '../apimachinery/aggregate-errors';
import { FieldError, fieldErrorMessage, fieldErrors, FieldPath } from '../apimachinery/field-errors';
import type { AuditLevel } from './audit-context';
import { AUDIT_API_VERSION, AUDIT_LEVELS, AUDIT_STAGES, AuditStage } from './policy';

/**
 * The audit Policy's shape, checked by class-validator, then kube's ValidatePolicy rules with
 * their field paths. Loaded only when a policy is read (policy.ts).
 */

const stringList = (args: ValidationArguments) => `${args.property}: must be a list of strings`;

export class GroupResources {
  @IsOptional()
  @IsString({ message: 'group: must be a string' })
  group?: string;

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  resources?: string[];

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  resourceNames?: string[];
}

export class PolicyRule {
  @IsIn(AUDIT_LEVELS, { message: 'level: level' })
  level!: AuditLevel;

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  users?: string[];

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  userGroups?: string[];

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  verbs?: string[];

  @IsOptional()
  @IsArray({ message: 'resources: must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => GroupResources)
  resources?: GroupResources[];

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  namespaces?: string[];

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  nonResourceURLs?: string[];

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  omitStages?: AuditStage[];

  @IsOptional()
  @IsBoolean({ message: 'omitManagedFields: must be a boolean' })
  omitManagedFields?: boolean;
}

export class Policy {
  @Allow()
  apiVersion?: string;

  @Allow()
  kind?: string;

  @IsOptional()
  @IsArray({ message: 'rules: must be a list of objects' })
  @ValidateNested({ each: true })
  @Type(() => PolicyRule)
  rules: PolicyRule[] = [];

  @IsOptional()
  @IsArray({ message: stringList })
  @IsString({ each: true, message: stringList })
  omitStages?: AuditStage[];

  @IsOptional()
  @IsBoolean({ message: 'omitManagedFields: must be a boolean' })
  omitManagedFields?: boolean;
}

/** class-validator's findings as field errors: nested paths as kube writes them (`rules[0].resources[1]`). */
function shapeErrors(errors: ValidationError[], path: FieldPath | undefined, out: FieldError[]): void {
  for (const error of errors) {
    const here = /^\d+$/.test(error.property) && path ? path.index(Number(error.property)) : path ? path.child(error.property) : FieldPath.root(error.property);
    const constraints = Object.entries(error.constraints ?? {});
    if (constraints.some(([name]) => name === 'isIn')) {
      if (error.value === undefined || error.value === '') out.push(fieldErrors.required(here, ''));
      else out.push(fieldErrors.notSupported(here, error.value, AUDIT_LEVELS));
    } else if (constraints.length) {
      // The first finding of a field says enough (a non-list is also "not strings").
      const detail = constraints[0][1].replace(/^[^:]*: /, '');
      out.push(fieldErrors.invalid(here, error.value, detail));
    }
    if (error.children?.length) shapeErrors(error.children, here, out);
  }
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validateOmitStages(stages: string[] | undefined, path: FieldPath, out: FieldError[]): void {
  (stages ?? []).forEach((stage, i) => {
    if (!AUDIT_STAGES.includes(stage as AuditStage)) out.push(fieldErrors.invalid(path.index(i), stage, `allowed stages are ${AUDIT_STAGES.join(',')}`));
  });
}

/** kube's validation.ValidatePolicy, past the shape. */
function validatePolicy(policy: Policy): FieldError[] {
  const out: FieldError[] = [];
  validateOmitStages(policy.omitStages, FieldPath.root('omitStages'), out);
  policy.rules.forEach((rule, i) => {
    const path = FieldPath.root('rules').index(i);
    (rule.nonResourceURLs ?? []).forEach((url, j) => {
      if (url === '*') return;
      if (!url.startsWith('/')) out.push(fieldErrors.invalid(path.child('nonResourceURLs').index(j), url, "non-resource URL rules must begin with a '/' character"));
      const star = url.indexOf('*');
      if (star >= 0 && star !== url.length - 1) {
        out.push(fieldErrors.invalid(path.child('nonResourceURLs').index(j), url, "non-resource URL wildcards '*' must be the final character of the rule"));
      }
    });
    (rule.resources ?? []).forEach((gr, j) => {
      const grPath = path.child('resources').index(j);
      if (gr.group && (gr.group.length > 253 || !DNS_SUBDOMAIN.test(gr.group))) {
        out.push(fieldErrors.invalid(grPath.child('group'), gr.group, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"));
      }
      if (gr.resourceNames?.length && !gr.resources?.length) {
        out.push(fieldErrors.invalid(grPath.child('resourceNames'), gr.resourceNames, 'using resourceNames requires at least one resource'));
      }
    });
    validateOmitStages(rule.omitStages, path.child('omitStages'), out);
    if (rule.nonResourceURLs?.length && (rule.resources?.length || rule.namespaces?.length)) {
      out.push(fieldErrors.invalid(path.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
  });
  return out;
}

/** A policy from the text of a file (YAML or JSON); throws an Error in kube's words. */
export function parseAuditPolicy(text: string): Policy {
  let raw: unknown;
  try {
    raw = YAML.parse(text);
  } catch (err) {
    throw new Error(`failed decoding: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('failed decoding: the policy is not an object');
  const object = raw as Record<string, unknown>;
  if (object.kind !== 'Policy' || object.apiVersion !== AUDIT_API_VERSION) {
    const [group, version] = typeof object.apiVersion === 'string' && object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', String(object.apiVersion ?? '')];
    throw new Error(`unknown group version field ${group}/${version}, Kind=${String(object.kind ?? '')} in policy (expected apiVersion ${AUDIT_API_VERSION}, kind Policy)`);
  }
  const policy = plainToInstance(Policy, object);
  const found: FieldError[] = [];
  shapeErrors(validateSync(policy), undefined, found);
  if (found.length === 0) found.push(...validatePolicy(policy));
  if (found.length) throw new Error(aggregateErrors(found.map(fieldErrorMessage)));
  if (policy.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  return policy;
}
