import { Inject, Injectable } from '@nestjs/common';
import { errors, StatusError } from '../apimachinery/errors';
import { objectKey } from '../apimachinery/store-key';
import { AdmissionPlugin, AdmissionRequest } from '../registry/rest/admission';
import { jsonEqual } from '../apimachinery/system-metadata';
import { isPlainObject, KubeObject } from '../apimachinery/types';
import { list, record, str } from '../apimachinery/validation/shape';
import { nodeIdentity } from '../apimachinery/node-identity';
import { OBJECT_STORE, ObjectStore } from '../storage/mvcc/object-store';
import { nodeType } from './kinds/node';
import { isMirrorPod, MIRROR_POD_ANNOTATION } from './kinds/pod';
import { podConfigMapNames, podSecretNames, podUsesClaimVolumes } from './kinds/references';
import { forbiddenNodeLabels, modifiedLabels } from './node-labels';

export const NODE_RESTRICTION_PLUGIN = 'NodeRestriction';

/** Empty and absent lists are the same to kube's semantic equality. */
const orEmpty = (value: unknown) => (Array.isArray(value) && value.length === 0 ? undefined : (value ?? undefined));

/**
 * kube's NodeRestriction admission (`--enable-admission-plugins=NodeRestriction`): a node
 * (user `system:node:<name>` in `system:nodes`) may modify only its own Node object, may
 * create only mirror pods bound to itself that reference nothing else, and may delete only
 * pods bound to itself. Other callers are not affected.
 */
@Injectable()
export class NodeRestrictionAdmission implements AdmissionPlugin {
  readonly name = NODE_RESTRICTION_PLUGIN;

  constructor(@Inject(OBJECT_STORE) private readonly store: ObjectStore) {}

  async admit(request: AdmissionRequest): Promise<void> {
    const identity = nodeIdentity(request.options.user);
    if (!identity) return;
    const { target } = request;
    if (!identity.nodeName) throw this.forbidden(request, `could not determine node from user "${request.options.user.username}"`);
    if (target.type.group !== '') return;
    switch (target.type.plural) {
      case 'pods':
        return this.admitPod(identity.nodeName, request);
      case 'nodes':
        return this.admitNode(identity.nodeName, request);
      case 'persistentvolumeclaims':
        throw this.forbidden(request, 'may only update PVC status');
      default:
        return;
    }
  }

  private async admitPod(nodeName: string, request: AdmissionRequest): Promise<void> {
    switch (request.operation) {
      case 'CREATE':
        return this.admitPodCreate(nodeName, request);
      case 'DELETE':
        if (str(record(request.object.spec).nodeName) !== nodeName) {
          throw this.forbidden(request, `node "${nodeName}" can only delete pods with spec.nodeName set to itself`);
        }
        return;
      default:
        throw this.forbidden(request, `unexpected operation "${request.operation}", node "${nodeName}" can only create and delete mirror pods`);
    }
  }

  private async admitPodCreate(nodeName: string, request: AdmissionRequest): Promise<void> {
    const pod = request.object;
    const deny = (why: string) => this.forbidden(request, why);
    if (!isMirrorPod(pod)) throw deny(`pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${nodeName}" can only create mirror pods`);
    if (str(record(pod.spec).nodeName) !== nodeName) throw deny(`node "${nodeName}" can only create pods with spec.nodeName set to itself`);
    const owners = list<unknown>(pod.metadata.ownerReferences).map((o) => record(o));
    if (owners.length > 1) throw deny(`node "${nodeName}" can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw deny(`node "${nodeName}" can only create pods with an owner reference set to itself`);
    const owner = owners[0];
    if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) {
      throw deny(`node "${nodeName}" can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) throw deny(`node "${nodeName}" can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw deny(`node "${nodeName}" must not set blockOwnerDeletion on an owner reference`);
    const node = await this.store.get(objectKey(nodeType, '', nodeName));
    if (!node) throw errors.notFound({ group: '', resource: 'node' }, nodeName);
    if (owner.uid !== node.object.metadata.uid) {
      throw deny(`node ${nodeName} UID mismatch: expected ${str(owner.uid)} got ${node.object.metadata.uid ?? ''}`);
    }
    // A mirror pod must not reference other objects: the node would gain access to them.
    if (str(record(pod.spec).serviceAccountName)) throw deny(`node "${nodeName}" can not create pods that reference a service account`);
    if (podSecretNames(pod).length) throw deny(`node "${nodeName}" can not create pods that reference secrets`);
    if (podConfigMapNames(pod).length) throw deny(`node "${nodeName}" can not create pods that reference configmaps`);
    if (referencesClusterTrustBundles(pod)) throw deny(`node "${nodeName}" can not create pods that reference clustertrustbundles`);
    if (podUsesClaimVolumes(pod)) throw deny(`node "${nodeName}" can not create pods that reference persistentvolumeclaims`);
  }

  private async admitNode(nodeName: string, request: AdmissionRequest): Promise<void> {
    const requested = request.target.name;
    if (requested !== nodeName) throw this.forbidden(request, `node "${nodeName}" is not allowed to modify node "${requested}"`);
    const node = request.object;
    const spec = record(node.spec);
    if (request.operation === 'CREATE') {
      if (isPlainObject(spec.configSource)) {
        throw this.forbidden(request, `node "${nodeName}" is not allowed to create pods with a non-nil configSource`);
      }
      const forbidden = forbiddenNodeLabels(modifiedLabels(node.metadata.labels, undefined));
      if (forbidden.length) throw this.forbidden(request, `node "${nodeName}" is not allowed to set the following labels: ${forbidden.join(', ')}`);
    }
    if (request.operation === 'UPDATE' && request.old) {
      const oldSpec = record(request.old.spec);
      if (isPlainObject(spec.configSource) && !jsonEqual(spec.configSource, oldSpec.configSource)) {
        throw this.forbidden(request, `node "${nodeName}" is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!jsonEqual(orEmpty(spec.taints), orEmpty(oldSpec.taints))) {
        throw this.forbidden(request, `node "${nodeName}" is not allowed to modify taints`);
      }
      const forbidden = forbiddenNodeLabels(modifiedLabels(node.metadata.labels, request.old.metadata.labels));
      if (forbidden.length) throw this.forbidden(request, `is not allowed to modify labels: ${forbidden.join(', ')}`);
    }
  }

  /** kube's admission.NewForbidden: the resource and the object's name, then why. */
  private forbidden(request: AdmissionRequest, why: string): StatusError {
    const name = request.target.name || request.object.metadata.name || request.object.metadata.generateName || 'Unknown';
    return errors.forbiddenResource(request.target.groupResource, name, why);
  }
}

function referencesClusterTrustBundles(pod: KubeObject): boolean {
  return list<unknown>(record(pod.spec).volumes).some((v) =>
    list<unknown>(record(record(v).projected).sources).some((s) => isPlainObject(record(s).clusterTrustBundle)),
  );
}
