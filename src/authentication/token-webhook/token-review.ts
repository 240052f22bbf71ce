import { setOwn } from '../../apimachinery/types';
import { UserInfo } from '../../apimachinery/user-info';

export type TokenReviewVersionName = 'v1' | 'v1beta1';

export const AUTHENTICATION_GROUP = 'authentication.platform.io';

/** What the webhook says of a token. */
export interface TokenReviewStatus {
  authenticated: boolean;
  user?: UserInfo;
  /** The audiences the token is valid for; empty: the API's own. */
  audiences: string[];
  error?: string;
}

/** A webhook answer that is not a well-formed TokenReview. */
export class MalformedTokenReviewError extends Error {}

/** The request body, as kube serialises a new TokenReview (the token is never logged from here on). */
export function tokenReviewBody(token: string, audiences: readonly string[], version: TokenReviewVersionName): Record<string, unknown> {
  return {
    kind: 'TokenReview',
    apiVersion: `${AUTHENTICATION_GROUP}/${version}`,
    metadata: { creationTimestamp: null },
    spec: { token, ...(audiences.length ? { audiences: [...audiences] } : {}) },
    status: { user: {} },
  };
}

function goType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function typeError(field: string, expected: string, value: unknown): MalformedTokenReviewError {
  return new MalformedTokenReviewError(`json: cannot unmarshal ${goType(value)} into Go struct field ${field} of type ${expected}`);
}

const absent = (value: unknown) => value === undefined || value === null;

function stringField(object: Record<string, unknown>, key: string, path: string): string {
  const value = object[key];
  if (absent(value)) return '';
  if (typeof value !== 'string') throw typeError(`${path}.${key}`, 'string', value);
  return value;
}

function stringList(value: unknown, path: string): string[] {
  if (absent(value)) return [];
  if (!Array.isArray(value)) throw typeError(path, '[]string', value);
  for (const item of value) if (typeof item !== 'string') throw typeError(path, 'string', item);
  return value as string[];
}

function objectField(value: unknown, path: string, type: string): Record<string, unknown> {
  if (absent(value)) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw typeError(path, type, value);
  return value as Record<string, unknown>;
}

function userOf(value: unknown): UserInfo {
  const user = objectField(value, 'TokenReviewStatus.status.user', 'v1.UserInfo');
  const path = 'TokenReviewStatus.status.user';
  const info: UserInfo = { username: stringField(user, 'username', path), groups: [...stringList(user.groups, `${path}.groups`)] };
  const uid = stringField(user, 'uid', path);
  if (uid) info.uid = uid;
  const extraObject = objectField(user.extra, `${path}.extra`, 'map[string]v1.ExtraValue');
  const extra: Record<string, string[]> = {};
  for (const [key, values] of Object.entries(extraObject)) setOwn(extra, key, [...stringList(values, `${path}.extra`)]);
  if (Object.keys(extra).length) info.extra = extra;
  return info;
}

/** Decodes the webhook's answer: a TokenReview of the version asked, with a status. */
export function parseTokenReviewResponse(body: string, version: TokenReviewVersionName): TokenReviewStatus {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    // JSON.parse quotes the text it failed on, which may hold the token.
    throw new MalformedTokenReviewError("couldn't get version/kind; json parse error: the webhook's answer is not JSON");
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new MalformedTokenReviewError("couldn't get version/kind; json parse error: not a JSON object");
  const review = doc as Record<string, unknown>;
  // The answer is not quoted in these messages: it may echo the token.
  if (!review.kind) throw new MalformedTokenReviewError("Object 'Kind' is missing in the webhook's answer");
  if (!review.apiVersion) throw new MalformedTokenReviewError("Object 'apiVersion' is missing in the webhook's answer");
  const expected = `${AUTHENTICATION_GROUP}/${version}`;
  if (review.apiVersion !== expected || review.kind !== 'TokenReview') {
    throw new MalformedTokenReviewError(`no kind ${JSON.stringify(review.kind)} is registered for version ${JSON.stringify(review.apiVersion)}; expected TokenReview ${expected}`);
  }
  const status = objectField(review.status, 'TokenReview.status', 'v1.TokenReviewStatus');
  if (!absent(status.authenticated) && typeof status.authenticated !== 'boolean') throw typeError('TokenReviewStatus.status.authenticated', 'bool', status.authenticated);
  const result: TokenReviewStatus = {
    authenticated: status.authenticated === true,
    audiences: [...stringList(status.audiences, 'TokenReviewStatus.status.audiences')],
  };
  const error = stringField(status, 'error', 'TokenReviewStatus.status');
  if (error) result.error = error;
  const user = userOf(status.user);
  if (result.authenticated) result.user = user;
  return result;
}
