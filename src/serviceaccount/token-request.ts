import { ResourceStorage, Target, WriteOptions, WriteResult } from '../registry/rest/storage';
import { ResourceType } from '../runtime/schema/resource-type';
import { objectMetaSchema } from '../runtime/schema/meta';
import { atomicList, field, int64, kindSchema, string, struct } from '../runtime/schema/schema';
import { errors } from '../apimachinery/errors';
import { FieldError, fieldErrors, FieldPath } from '../apimachinery/field-errors';
import { objectKey } from '../apimachinery/store-key';
import { isPlainObject, KubeObject } from '../apimachinery/types';
import { podType } from '../core/kinds/pod';
import { secretType } from '../core/kinds/secret';
import { serviceAccountType } from '../core/kinds/service-account';
import { ObjectStore } from '../storage/mvcc/object-store';
import { ServiceAccountTokens, TokenSpec } from '../authentication/serviceaccount/service-account-tokens';

/**
 * TokenRequest (authentication.platform.io/v1), the `token` subresource of ServiceAccounts
 * (kube's TokenREST): a bound token for the account, for the requested audiences (the API's
 * by default), valid `expirationSeconds` (default 1 h, at least 10 min, capped by
 * --service-account-max-token-expiration), optionally bound to a Pod or Secret of the
 * namespace. Nothing is stored.
 */

export const TOKEN_REQUEST_GROUP = 'authentication.platform.io';
/** kubectl's `create token` posts kube's group; the answer speaks the apiVersion posted. */
export const KUBE_TOKEN_REQUEST_API_VERSION = 'authentication.k8s.io/v1';

const DEFAULT_EXPIRATION_SECONDS = 3600;
/** kube's validation.MinTokenAgeSec and MaxTokenAgeSec. */
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

const boundObjectReferenceSchema = struct(
  {
    kind: field(string(), "Kind of the referent. Valid kinds are 'Pod' and 'Secret'."),
    apiVersion: field(string(), 'API version of the referent.'),
    name: field(string(), 'Name of the referent.'),
    uid: field(string(), 'UID of the referent.'),
  },
  { typeName: 'v1.BoundObjectReference', description: 'BoundObjectReference is a reference to an object that a token is bound to.' },
);

export const tokenRequestSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          audiences: field(
            atomicList(string()),
            'Audiences are the intendend audiences of the token. A recipient of a token must identify themself with an identifier in the list of audiences of the token, and otherwise should reject the token. A token issued for multiple audiences may be used to authenticate against any of the audiences listed but implies a high degree of trust between the target audiences.',
          ),
          expirationSeconds: field(
            int64(),
            'ExpirationSeconds is the requested duration of validity of the request. The token issuer may return a token with a different validity duration so a client needs to check the \'expiration\' field in a response.',
          ),
          boundObjectRef: field(
            boundObjectReferenceSchema,
            "BoundObjectRef is a reference to an object that the token will be bound to. The token will only be valid for as long as the bound object exists. NOTE: The API server's TokenReview endpoint will validate the BoundObjectRef, but other audiences may not. Keep ExpirationSeconds small if you want prompt revocation.",
          ),
        },
        { typeName: 'v1.TokenRequestSpec', description: 'TokenRequestSpec contains client provided parameters of a token request.' },
      ),
      'Spec holds information about the request being evaluated',
    ),
    status: field(
      struct(
        {
          token: field(string(), 'Token is the opaque bearer token.'),
          expirationTimestamp: field(string('date-time'), 'ExpirationTimestamp is the time of expiration of the returned token.'),
        },
        { typeName: 'v1.TokenRequestStatus', description: 'TokenRequestStatus is the result of a token request.' },
      ),
      'Status is filled in by the server and indicates whether the token can be authenticated.',
    ),
  },
  { typeName: 'v1.TokenRequest', description: 'TokenRequest requests a token for a given service account.' },
);

export const tokenRequestType: ResourceType = {
  group: TOKEN_REQUEST_GROUP,
  version: 'v1',
  kind: 'TokenRequest',
  listKind: 'TokenRequestList',
  plural: 'serviceaccounts',
  singular: 'tokenrequest',
  namespaced: true,
  verbs: ['create'],
  nameValidator: () => [],
  schema: tokenRequestSchema,
  strategy: { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, validate: () => [], validateUpdate: () => [] },
  table: 'none',
  protobuf: { message: 'platform.io.api.authentication.v1.TokenRequest' },
};

interface TokenRequestBody {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  spec?: { audiences?: unknown; expirationSeconds?: unknown; boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } };
}

const specPath = FieldPath.root('spec');

export class TokenRequestStorage implements ResourceStorage {
  constructor(
    private readonly tokens: ServiceAccountTokens,
    private readonly store: ObjectStore,
    private readonly kubeApiVersion: boolean,
  ) {}

  async create(target: Target, raw: Record<string, unknown>, _opts: WriteOptions): Promise<WriteResult> {
    const body = raw as TokenRequestBody;
    const apiVersion = this.apiVersionOf(body);
    const name = target.name;
    if (body.metadata?.name && body.metadata.name !== name) throw errors.badRequest('name in URL does not match name in TokenRequest body');
    if (body.metadata?.namespace && body.metadata.namespace !== target.namespace) throw errors.badRequest('namespace in URL does not match namespace in TokenRequest body');
    const spec = isPlainObject(body.spec) ? body.spec : {};
    const expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
    const errs = this.validate(expirationSeconds);
    if (errs.length) throw errors.invalid('TokenRequest', TOKEN_REQUEST_GROUP, name, errs);

    const account = (await this.store.get(objectKey(serviceAccountType, target.namespace, name)))?.object;
    if (!account) throw errors.notFound({ group: '', resource: 'serviceaccounts' }, name);
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? (spec.audiences as string[]) : this.tokens.settings.apiAudiences;
    let seconds = expirationSeconds as number;
    const max = this.tokens.settings.maxExpirationSeconds;
    if (max > 0 && seconds > max) seconds = max;
    const tokenSpec: TokenSpec = {
      namespace: target.namespace,
      serviceAccount: { name, uid: account.metadata.uid ?? '' },
      audiences,
      expirationSeconds: seconds,
    };
    if (spec.boundObjectRef) tokenSpec.bound = await this.bound(target.namespace, spec.boundObjectRef);
    const { token, expiresAt } = await this.tokens.issue(tokenSpec);
    const wireSpec: Record<string, unknown> = { audiences, expirationSeconds: seconds };
    if (spec.boundObjectRef) wireSpec.boundObjectRef = spec.boundObjectRef;
    const object = {
      kind: 'TokenRequest',
      apiVersion,
      metadata: { name, namespace: target.namespace, creationTimestamp: null },
      spec: wireSpec,
      status: { token, expirationTimestamp: new Date(expiresAt * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
    } as unknown as KubeObject;
    return { object, created: true };
  }

  private apiVersionOf(body: TokenRequestBody): string {
    const own = `${TOKEN_REQUEST_GROUP}/v1`;
    const accepted = this.kubeApiVersion ? [own, KUBE_TOKEN_REQUEST_API_VERSION] : [own];
    if (body.apiVersion !== undefined && !accepted.includes(body.apiVersion)) {
      throw errors.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${own})`);
    }
    if (body.kind !== undefined && body.kind !== 'TokenRequest') {
      throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (TokenRequest)`);
    }
    return body.apiVersion ?? own;
  }

  /** kube's ValidateTokenRequest. */
  private validate(expirationSeconds: unknown): FieldError[] {
    const at = specPath.child('expirationSeconds');
    if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) return [fieldErrors.invalid(at, expirationSeconds, 'must be an integer')];
    if (expirationSeconds < MIN_EXPIRATION_SECONDS) return [fieldErrors.invalid(at, expirationSeconds, 'may not specify a duration less than 10 minutes')];
    if (expirationSeconds > MAX_EXPIRATION_SECONDS) return [fieldErrors.invalid(at, expirationSeconds, 'may not specify a duration larger than 2^32 seconds')];
    return [];
  }

  /** The Pod or Secret a token is bound to, which must exist (with the uid given, if any). */
  private async bound(namespace: string, ref: NonNullable<NonNullable<TokenRequestBody['spec']>['boundObjectRef']>): Promise<TokenSpec['bound']> {
    const group = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/')[0] : '';
    const kind = ref.kind ?? '';
    const type = group === '' && kind === 'Pod' ? podType : group === '' && kind === 'Secret' ? secretType : undefined;
    if (!type) {
      const version = (ref.apiVersion ?? '').split('/').pop() ?? '';
      throw errors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
    }
    const name = ref.name ?? '';
    const object = name ? (await this.store.get(objectKey(type, namespace, name)))?.object : undefined;
    if (!object) throw errors.notFound({ group: '', resource: type.plural }, name);
    if (ref.uid && ref.uid !== object.metadata.uid) {
      throw errors.conflict(
        { group: '', resource: kind },
        name,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    return { kind: kind as 'Pod' | 'Secret', ref: { name, uid: object.metadata.uid ?? '' } };
  }
}
