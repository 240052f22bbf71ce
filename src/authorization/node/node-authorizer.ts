import { UserInfo } from '../../apimachinery/user-info';
import { AuthorizationAttributes, AuthorizationResult, Authorizer, RuleResolution } from '../authorizer';
import { StoreFollowingState } from '../decision-consistency';
import { rulesAllow } from '../rbac/rule-matching';
import { VertexType } from './graph';
import { nodeIdentity } from '../../apimachinery/node-identity';
import { COORDINATION_GROUP, NODE_RULES, RESOURCE_GROUP, STORAGE_GROUP } from './node-rules';

/** Where the authorizer learns which objects lead to which node. */
export interface NodeRelationships {
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean;
  /** Applies changes already seen but not yet in the graph, before a decision. */
  catchUp?(): Promise<void>;
  /** The graph's progress through the store's changes, when it follows the store. */
  readonly followsStore?: StoreFollowingState;
}

export interface NodeAuthorizerOptions {
  /** AuthorizeNodeWithSelectors together with AuthorizeWithSelectors: node and pod reads limited by selectors. */
  authorizeWithSelectors: boolean;
}

/** The namespace kube reserves for node heartbeat leases. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const ALLOW: AuthorizationResult = { decision: 'Allow' };
const noOpinion = (reason = ''): AuthorizationResult => ({ decision: 'NoOpinion', reason });

/** `spec.nodeName=<node>` (either `=` or `==`) among the request's parsed field selector. */
function selectsField(attrs: AuthorizationAttributes, field: string, value: string): boolean {
  return (attrs.fieldSelector?.requirements ?? []).some(
    (r) => r.field === field && (r.operator === 'Equals' || r.operator === 'DoubleEquals') && r.value === value,
  );
}

/**
 * kube's Node authorizer (plugin/pkg/auth/authorizer/node). For callers that are nodes it
 * decides secrets, config maps, claims, volumes, service account tokens (and leases,
 * CSINodes, resource slices) itself, from the graph of what pods bound to the node use;
 * with the selector gates also nodes and pods. Everything else is checked against the
 * static node rules. It never denies: a request it does not allow gets no opinion, with
 * kube's reason.
 */
export class NodeAuthorizer implements Authorizer {
  readonly type = 'Node';
  readonly followsStore?: StoreFollowingState;

  constructor(
    readonly name: string,
    private readonly graph: NodeRelationships,
    private readonly options: NodeAuthorizerOptions,
  ) {
    this.followsStore = graph.followsStore;
  }

  /** At once for a caller that is no node (nearly every request); a node's request may wait for the graph. */
  authorize(attrs: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult> {
    const identity = nodeIdentity(attrs.user);
    if (!identity) return noOpinion();
    const { nodeName } = identity;
    if (!nodeName) return noOpinion(`unknown node for user "${attrs.user.username}"`);
    return this.authorizeNode(nodeName, attrs);
  }

  private async authorizeNode(nodeName: string, attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    if (attrs.isResourceRequest) {
      const decided = await this.byResource(nodeName, attrs);
      if (decided) return decided;
    }
    return rulesAllow(NODE_RULES, attrs) ? ALLOW : noOpinion();
  }

  /** Nodes' permissions are not enumerable: reviews of a node's rules are incomplete, as in kube. */
  rulesFor(user: UserInfo): RuleResolution {
    if (nodeIdentity(user)) {
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
    }
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }

  /** The resources the authorizer subdivides; undefined sends the request to the static rules. */
  private async byResource(nodeName: string, attrs: AuthorizationAttributes): Promise<AuthorizationResult | undefined> {
    switch (`${attrs.apiGroup}/${attrs.resource}`) {
      case '/secrets':
        return this.readNamespacedObject(nodeName, 'secret', attrs);
      case '/configmaps':
        return this.readNamespacedObject(nodeName, 'configmap', attrs);
      case '/persistentvolumeclaims':
        return attrs.subresource === 'status' ? this.statusUpdate(nodeName, 'pvc', attrs) : this.get(nodeName, 'pvc', attrs);
      case '/persistentvolumes':
        return this.get(nodeName, 'pv', attrs);
      case `${RESOURCE_GROUP}/resourceclaims`:
        return this.get(nodeName, 'resourceclaim', attrs);
      case `${STORAGE_GROUP}/volumeattachments`:
        return this.get(nodeName, 'volumeattachment', attrs);
      case '/serviceaccounts':
        return this.createToken(nodeName, attrs);
      case `${COORDINATION_GROUP}/leases`:
        return this.lease(nodeName, attrs);
      case `${STORAGE_GROUP}/csinodes`:
        return this.csiNode(nodeName, attrs);
      case `${RESOURCE_GROUP}/resourceslices`:
        return this.resourceSlice(nodeName, attrs);
      case '/nodes':
        return this.options.authorizeWithSelectors ? this.node(nodeName, attrs) : undefined;
      case '/pods':
        return this.options.authorizeWithSelectors ? this.pod(nodeName, attrs) : undefined;
      default:
        return undefined;
    }
  }

  /** The graph answer for a named object. */
  private async related(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    if (!attrs.name) return noOpinion('No Object name found');
    await this.graph.catchUp?.();
    if (this.graph.hasPathFrom(nodeName, type, attrs.namespace, attrs.name)) return ALLOW;
    return noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  /** Secrets and config maps: get, or list/watch of one object (metadata.name field selector). */
  private readNamespacedObject(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult {
    if (!['get', 'list', 'watch'].includes(attrs.verb)) return noOpinion('can only read resources of this type');
    if (attrs.subresource) return noOpinion('cannot read subresource');
    if (!attrs.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(nodeName, type, attrs);
  }

  private get(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource) return noOpinion('cannot get subresource');
    return this.related(nodeName, type, attrs);
  }

  private statusUpdate(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult {
    if (attrs.verb !== 'update' && attrs.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (attrs.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.related(nodeName, type, attrs);
  }

  private createToken(nodeName: string, attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult {
    if (attrs.verb !== 'create' || !attrs.name) return noOpinion('can only create tokens for individual service accounts');
    if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(nodeName, 'serviceAccount', attrs);
  }

  private lease(nodeName: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) {
      return noOpinion('can only get, create, update, patch, or delete a node lease');
    }
    if (attrs.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // On create the name is not known yet; NodeRestriction checks it then.
    if (attrs.verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  private csiNode(nodeName: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) {
      return noOpinion('can only get, create, update, patch, or delete a CSINode');
    }
    if (attrs.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (attrs.verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
    return ALLOW;
  }

  private resourceSlice(nodeName: string, attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult {
    if (attrs.subresource) return noOpinion('cannot authorize ResourceSlice subresources');
    switch (attrs.verb) {
      case 'create':
        // The slice's node is checked by NodeRestriction, which sees the object.
        return ALLOW;
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return this.related(nodeName, 'resourceslice', attrs);
      case 'watch':
      case 'list':
      case 'deletecollection':
        if (!this.options.authorizeWithSelectors) return ALLOW;
        if (selectsField(attrs, 'nodeName', nodeName)) return ALLOW;
        return noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion('only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection');
    }
  }

  /** With the selector gates: a node reads only its own Node object; it may write any (NodeRestriction limits that). */
  private node(nodeName: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (!attrs.subresource) {
      if (['create', 'update', 'patch'].includes(attrs.verb)) return ALLOW;
      if (['get', 'list', 'watch'].includes(attrs.verb)) {
        // By name, not through the graph, so a kubelet can read its Node before creating it.
        if (attrs.name === nodeName) return ALLOW;
        if (!attrs.name) return noOpinion(`node '${nodeName}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${nodeName}' cannot read '${attrs.name}', only its own Node object`);
      }
    } else if (attrs.subresource === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) {
      return ALLOW;
    }
    return noOpinion();
  }

  /** With the selector gates: pods bound to the node, listed with `spec.nodeName=<node>`. */
  private pod(nodeName: string, attrs: AuthorizationAttributes): Promise<AuthorizationResult> | AuthorizationResult {
    switch (attrs.subresource) {
      case '':
        if (attrs.verb === 'get') return this.get(nodeName, 'pod', attrs);
        if (attrs.verb === 'list' || attrs.verb === 'watch') {
          if (selectsField(attrs, 'spec.nodeName', nodeName)) return ALLOW;
          // One pod by name (metadata.name field selector) is fine when it is bound to the node.
          if (attrs.name) return this.related(nodeName, 'pod', attrs);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods; NodeRestriction limits them to the node's own.
        if (attrs.verb === 'create' || attrs.verb === 'delete') return ALLOW;
        break;
      case 'status':
        if (attrs.verb === 'update' || attrs.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (attrs.verb === 'create') return ALLOW;
        break;
    }
    return noOpinion();
  }
}
