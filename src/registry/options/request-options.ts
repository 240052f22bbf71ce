import { errors, StatusError } from '../../apimachinery/errors';
import { FieldError, FieldErrorType, FieldPath } from '../../apimachinery/field-errors';
import { isApplyPatch, patchTypeOf } from '../../runtime/patch/patch-types';
import { atomicList, boolean, int64, named, string, struct } from '../../runtime/schema/schema';
import { JsonSyntaxError, parseJsonDocument } from '../../runtime/document/json-document';
import { decodeBySchema } from '../../runtime/schema/schema-decoder';
import { goQuote, goStringSlice } from '../../apimachinery/go-text';
import { DEFAULT_FIELD_VALIDATION, FieldValidationDirective } from '../../runtime/schema/field-validation';
import { validateFieldManager } from '../../apimachinery/validation/object-meta';
import { CREATE_OPTIONS, decodeQueryParameters, DELETE_OPTIONS, PATCH_OPTIONS, UPDATE_OPTIONS } from './query-parameters';

/**
 * The options of a write, parsed and checked once per request as kube's handlers do it:
 * CreateOptions, UpdateOptions, PatchOptions and DeleteOptions from the query (and, for
 * DELETE, from a DeleteOptions body). Bad values are kube's 422 Invalid on the options
 * kind (`CreateOptions.meta.platform.io "" is invalid: dryRun: Unsupported value: ...`).
 */
export interface RequestWriteOptions {
  dryRun: boolean;
  fieldManager?: string;
  fieldValidation: FieldValidationDirective;
  /** PATCH only: `force` (only allowed for apply patches). */
  force?: boolean;
  /** PUT and PATCH: the revision an `If-Match` header names. */
  ifMatch?: string;
  /** DELETE and deletecollection. */
  delete?: DeleteParameters;
}

export interface DeleteParameters {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
}

/** The group of kube's option kinds (meta.k8s.io). */
export const META_GROUP = 'meta.platform.io';
const DRY_RUN_ALL = 'All';
const FIELD_VALIDATION_VALUES = ['', 'Ignore', 'Strict', 'Warn'];
const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** One option error with its text already in kube's words. */
interface OptionError {
  field: string;
  type: FieldErrorType;
  body: string;
}

const TYPE_TEXT: Partial<Record<FieldErrorType, string>> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
};

/** A field error whose bad value is a string, printed with Go's %q as kube does. */
function fromFieldError(e: FieldError): OptionError {
  const value = e.type === 'FieldValueTooLong' || e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden' ? '' : `: ${goQuote(String(e.badValue))}`;
  return { field: e.field, type: e.type, body: `${TYPE_TEXT[e.type] ?? e.type}${value}${e.detail ? `: ${e.detail}` : ''}` };
}

function optionsInvalid(kind: OptionsKind, errs: OptionError[]): StatusError {
  const messages = errs.map((e) => `${e.field}: ${e.body}`);
  const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${kind}.${META_GROUP} "" is invalid: ${summary}`, {
    group: META_GROUP,
    kind,
    causes: errs.map((e) => ({ reason: e.type, message: e.body, field: e.field })),
  });
}

/** `dryRun` may only say `All` (an empty value means no dry run). */
function dryRunErrors(dryRun: string[]): OptionError[] {
  if (dryRun.every((v) => v === DRY_RUN_ALL || v === '')) return [];
  return [{ field: 'dryRun', type: 'FieldValueNotSupported', body: `Unsupported value: ${goStringSlice(dryRun)}: supported values: "${DRY_RUN_ALL}"` }];
}

function fieldValidationErrors(value: string): OptionError[] {
  if (FIELD_VALIDATION_VALUES.includes(value)) return [];
  const supported = FIELD_VALIDATION_VALUES.map((v) => JSON.stringify(v)).join(', ');
  return [{ field: 'fieldValidation', type: 'FieldValueNotSupported', body: `Unsupported value: ${goQuote(value)}: supported values: ${supported}` }];
}

function fieldManagerErrors(manager: string): OptionError[] {
  return validateFieldManager(manager, FieldPath.root('fieldManager')).map(fromFieldError);
}

/** `If-Match: "42"` (or W/"42", or 42) names the version a PUT or PATCH must apply to. */
export function parseIfMatch(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined || text.trim() === '' || text.trim() === '*') return undefined;
  const value = text.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
  if (!/^\d+$/.test(value)) throw errors.badRequest(`If-Match: invalid resource version ${JSON.stringify(text)}`);
  return value;
}

/** The verbs of writes, as the request info names them (one mapping from the HTTP method, there). */
export type WriteVerb = 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const WRITE_VERBS: ReadonlySet<string> = new Set<WriteVerb>(['create', 'update', 'patch', 'delete', 'deletecollection']);

export interface OptionsSource {
  verb: WriteVerb;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** The DELETE body (JSON DeleteOptions), when there is one. */
  body?: Buffer;
}

const OPTIONS_SCHEMAS = { CreateOptions: CREATE_OPTIONS, UpdateOptions: UPDATE_OPTIONS, PatchOptions: PATCH_OPTIONS } as const;

/**
 * POST, PUT and PATCH: the options kind decoded from the query (a bad value is 400), then
 * the checks of kube's Validate{Create,Update,Patch}Options, in their order (422).
 */
function parseWriteParameters(kind: Exclude<OptionsKind, 'DeleteOptions'>, src: OptionsSource): RequestWriteOptions {
  const decoded: { dryRun: string[]; fieldManager?: string; fieldValidation?: string; force?: boolean } = decodeQueryParameters(src.query, OPTIONS_SCHEMAS[kind]);
  const { dryRun, fieldManager, force } = decoded;
  const fieldValidation = decoded.fieldValidation ?? '';
  const errs: OptionError[] = [];
  if (kind === 'PatchOptions') {
    const apply = isApplyPatch(header(src, 'content-type'));
    if (!apply && force !== undefined) {
      errs.push({ field: 'force', type: 'FieldValueForbidden', body: 'Forbidden: may not be specified for non-apply patch' });
    }
    if (apply && !fieldManager) errs.push({ field: 'fieldManager', type: 'FieldValueRequired', body: 'Required value: is required for apply patch' });
  }
  errs.push(...fieldManagerErrors(fieldManager ?? ''), ...dryRunErrors(dryRun), ...fieldValidationErrors(fieldValidation));
  if (errs.length) throw optionsInvalid(kind, errs);
  const options: RequestWriteOptions = {
    dryRun: dryRun.includes(DRY_RUN_ALL),
    fieldManager: fieldManager || undefined,
    fieldValidation: fieldValidation === '' ? DEFAULT_FIELD_VALIDATION : (fieldValidation as FieldValidationDirective),
  };
  if (force !== undefined) options.force = force;
  if (kind !== 'CreateOptions') options.ifMatch = parseIfMatch(src.headers['if-match']);
  return options;
}

function header(src: OptionsSource, name: string): string | undefined {
  const v = src.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** meta/v1 DeleteOptions as a body decodes into it (and as OpenAPI describes it). */
export const deleteOptionsSchema = struct(
  {
    kind: string(),
    apiVersion: string(),
    gracePeriodSeconds: int64(),
    preconditions: struct({ uid: named(string(), 'types.UID'), resourceVersion: string() }, { typeName: 'v1.Preconditions' }),
    orphanDependents: boolean(),
    propagationPolicy: named(string(), 'v1.DeletionPropagation'),
    dryRun: atomicList(string()),
    ignoreStoreReadErrorWithClusterBreakingPotential: boolean(),
  },
  { typeName: 'v1.DeleteOptions' },
);

interface RawDeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun?: string[];
}

/** kube takes DeleteOptions from the body when there is one, else from the query. */
function rawDeleteOptions(src: OptionsSource): RawDeleteOptions {
  const text = src.body && src.body.length ? src.body.toString('utf8') : '';
  if (text.trim()) {
    let doc;
    try {
      doc = parseJsonDocument(text);
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw errors.badRequest(`couldn't get version/kind; json parse error: ${err.message}`);
      throw err;
    }
    const decoded = decodeBySchema(doc, deleteOptionsSchema, { strict: false, dialect: 'json', rootTypeName: 'v1.DeleteOptions' });
    if (decoded.typeError) throw errors.badRequest(decoded.typeError);
    return decoded.value as RawDeleteOptions;
  }
  const decoded = decodeQueryParameters(src.query, DELETE_OPTIONS);
  const out: RawDeleteOptions = { dryRun: decoded.dryRun };
  if (decoded.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = decoded.gracePeriodSeconds;
  if (decoded.orphanDependents !== undefined) out.orphanDependents = decoded.orphanDependents;
  if (decoded.propagationPolicy !== undefined) out.propagationPolicy = decoded.propagationPolicy;
  return out;
}

/** DELETE and deletecollection: kube's ValidateDeleteOptions. */
function parseDeleteParameters(src: OptionsSource): RequestWriteOptions {
  const raw = rawDeleteOptions(src);
  const errs: OptionError[] = [];
  const policy = raw.propagationPolicy;
  if (raw.orphanDependents !== undefined && policy !== undefined) {
    errs.push({
      field: 'propagationPolicy',
      type: 'FieldValueInvalid',
      body: `Invalid value: ${goQuote(policy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (policy !== undefined && !PROPAGATION_POLICIES.includes(policy)) {
    const supported = [...PROPAGATION_POLICIES, 'nil'].map((v) => JSON.stringify(v)).join(', ');
    errs.push({ field: 'propagationPolicy', type: 'FieldValueNotSupported', body: `Unsupported value: ${goQuote(policy)}: supported values: ${supported}` });
  }
  errs.push(...dryRunErrors(raw.dryRun ?? []));
  if (errs.length) throw optionsInvalid('DeleteOptions', errs);
  const pre = raw.preconditions;
  return {
    dryRun: (raw.dryRun ?? []).includes(DRY_RUN_ALL),
    fieldValidation: DEFAULT_FIELD_VALIDATION,
    delete: {
      preconditions: pre && (pre.uid || pre.resourceVersion) ? { uid: pre.uid || undefined, resourceVersion: pre.resourceVersion || undefined } : undefined,
      propagationPolicy: policy ?? (raw.orphanDependents ? 'Orphan' : undefined),
      // kube's BeforeDelete: a negative grace period is taken as one second, not refused.
      gracePeriodSeconds: raw.gracePeriodSeconds !== undefined && raw.gracePeriodSeconds < 0 ? 1 : raw.gracePeriodSeconds,
    },
  };
}

/**
 * Parses and checks the options of a write request by its verb. A patch's Content-Type is
 * checked first: an unsupported patch type is 415 before anything else.
 */
export function parseRequestWriteOptions(src: OptionsSource): RequestWriteOptions {
  switch (src.verb) {
    case 'create':
      // Nearly every create has no options: the defaults, as the checks would give them.
      if (Object.keys(src.query).length === 0) return { dryRun: false, fieldManager: undefined, fieldValidation: DEFAULT_FIELD_VALIDATION };
      return parseWriteParameters('CreateOptions', src);
    case 'update':
      return parseWriteParameters('UpdateOptions', src);
    case 'patch':
      patchTypeOf(header(src, 'content-type'));
      return parseWriteParameters('PatchOptions', src);
    case 'delete':
    case 'deletecollection':
      return parseDeleteParameters(src);
  }
}
