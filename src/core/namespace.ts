import { FieldError, fieldErrors, FieldPath } from '../apimachinery/field-errors';
import { ResourceStrategy, ResourceType } from '../runtime/schema/resource-type';
import { isPlainObject, KubeObject } from '../apimachinery/types';
import { validateNamespaceName } from '../apimachinery/validation/names';
import { validateFinalizerName } from '../apimachinery/validation/object-meta';
import { strList } from '../apimachinery/validation/shape';
import { objectMetaSchema } from '../runtime/schema/meta';
import { atomicList, dateTime, field, kindSchema, mapList, named, string, struct } from '../runtime/schema/schema';
import { ageColumn, nameColumn } from '../runtime/table/columns';
import { TableDefinition } from '../runtime/table/table';

/** The core Namespace kind (v1), with kube's namespace strategy and validation. */

/** The finalizer every namespace gets on create; a token, not a domain name. */
export const FINALIZER_KUBERNETES = 'kubernetes';
/** kube's immutable label carrying the namespace's name, which clients select on. */
export const LABEL_METADATA_NAME = 'platform.io/metadata.name';

export interface NamespaceSpec {
  finalizers?: string[];
}

export interface NamespaceStatus {
  phase?: 'Active' | 'Terminating';
  conditions?: unknown[];
}

export interface Namespace extends KubeObject {
  spec?: NamespaceSpec;
  status?: NamespaceStatus;
}

/** Finalizer names kube accepts without a domain prefix. */
const STANDARD_FINALIZERS = [FINALIZER_KUBERNETES, 'orphan', 'foregroundDeletion'];

/** A spec finalizer is a qualified name and, without a '/', one of the standard names. */
export function validateNamespaceFinalizer(name: string, path: FieldPath): FieldError[] {
  const errs = validateFinalizerName(name, path);
  if (!name.includes('/') && !STANDARD_FINALIZERS.includes(name)) {
    errs.push(fieldErrors.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

/** kube's ValidateNamespace without ObjectMeta (the generic storage checks that); errors name the list. */
export function validateNamespace(ns: Namespace): FieldError[] {
  const path = FieldPath.root('spec').child('finalizers');
  return strList(ns.spec?.finalizers).flatMap((f) => validateNamespaceFinalizer(f, path));
}

/** kube keeps this label equal to the name on every write, whatever the client sent. */
function setNameLabel(ns: Namespace): void {
  const name = ns.metadata.name;
  if (!name) return;
  if (ns.metadata.labels === undefined || ns.metadata.labels === null) ns.metadata.labels = {};
  if (isPlainObject(ns.metadata.labels)) ns.metadata.labels[LABEL_METADATA_NAME] = name;
}

/** Adds the kubernetes finalizer to what the client asked for; a wrongly typed spec is left for validation. */
function ensureKubernetesFinalizer(ns: Namespace): void {
  if (ns.spec === undefined || ns.spec === null) ns.spec = {};
  if (!isPlainObject(ns.spec)) return;
  const finalizers = ns.spec.finalizers;
  if (finalizers === undefined || finalizers === null) ns.spec.finalizers = [FINALIZER_KUBERNETES];
  else if (Array.isArray(finalizers) && !finalizers.includes(FINALIZER_KUBERNETES)) finalizers.push(FINALIZER_KUBERNETES);
}

/** Finalizers change only through the finalize subresource and status only through status. */
function keepFinalizersAndStatus(ns: Namespace, old: Namespace): void {
  if (ns.spec === undefined || ns.spec === null) ns.spec = {};
  if (isPlainObject(ns.spec)) {
    if (old.spec?.finalizers !== undefined) ns.spec.finalizers = structuredClone(old.spec.finalizers);
    else delete ns.spec.finalizers;
  }
  if (old.status !== undefined) ns.status = structuredClone(old.status);
  else delete ns.status;
}

/** core/v1 Namespace; conditions are a map list keyed by type, as kube marks them. */
export const namespaceSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          finalizers: field(
            atomicList(named(string(), 'v1.FinalizerName')),
            'Finalizers is an opaque list of values that must be empty to permanently remove object from storage.',
          ),
        },
        { typeName: 'v1.NamespaceSpec', description: 'NamespaceSpec describes the attributes on a Namespace.' },
      ),
      'Spec defines the behavior of the Namespace.',
    ),
    status: field(
      struct(
        {
          phase: field(named(string(), 'v1.NamespacePhase'), 'Phase is the current lifecycle phase of the namespace: Active or Terminating.'),
          conditions: field(
            mapList(
              struct(
                {
                  type: field(named(string(), 'v1.NamespaceConditionType'), 'Type of namespace controller condition.'),
                  status: field(named(string(), 'v1.ConditionStatus'), 'Status of the condition, one of True, False, Unknown.'),
                  lastTransitionTime: field(dateTime(), 'Last time the condition transitioned from one status to another.'),
                  reason: field(string(), "Unique, one-word, CamelCase reason for the condition's last transition."),
                  message: field(string(), 'Human-readable message indicating details about last transition.'),
                },
                { required: ['type', 'status'], typeName: 'v1.NamespaceCondition', description: 'NamespaceCondition contains details about state of namespace.' },
              ),
              ['type'],
              { patchStrategy: 'merge', patchMergeKey: 'type' },
            ),
            "Represents the latest available observations of a namespace's current state.",
          ),
        },
        { typeName: 'v1.NamespaceStatus', description: 'NamespaceStatus is information about the current status of a Namespace.' },
      ),
      'Status describes the current status of a Namespace.',
    ),
  },
  { typeName: 'v1.Namespace', description: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.' },
);

export const namespaceStrategy: ResourceStrategy<Namespace> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForCreate(ns) {
    ns.status = { phase: 'Active' };
    ensureKubernetesFinalizer(ns);
    setNameLabel(ns);
  },
  prepareForUpdate(ns, old) {
    keepFinalizersAndStatus(ns, old);
    setNameLabel(ns);
  },
  validate: (ns) => validateNamespace(ns),
  validateUpdate: (ns) => validateNamespace(ns),
};

/**
 * kube's namespace finalize strategy (the `finalize` subresource): a write that changes
 * spec.finalizers and nothing the other strategies guard; status stays as stored.
 */
export const namespaceFinalizeStrategy: ResourceStrategy<Namespace> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForUpdate(ns, old) {
    if (old.status !== undefined) ns.status = structuredClone(old.status);
    else delete ns.status;
    setNameLabel(ns);
  },
  validate: (ns) => validateNamespace(ns),
  validateUpdate: (ns) => validateNamespace(ns),
};

/** kube's namespace printer: NAME, STATUS (the phase), AGE. */
export const namespaceTable: TableDefinition<Namespace> = {
  columns: [
    nameColumn,
    { name: 'Status', type: 'string', description: 'The status of the namespace', cell: (ns) => ns.status?.phase ?? '' },
    ageColumn,
  ],
};

export const namespaceType: ResourceType<Namespace> = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  // kube serves no deletecollection on namespaces.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  deleteReturnsObject: true,
  nameValidator: validateNamespaceName,
  schema: namespaceSchema,
  strategy: namespaceStrategy,
  table: namespaceTable,
  protobuf: { message: 'platform.io.api.core.v1.Namespace', listMessage: 'platform.io.api.core.v1.NamespaceList' },
};
