import type { Request } from 'express';
import type { Strategy as PassportStrategy } from 'passport';
import { Strategy } from 'passport-strategy';

/**
 * An authentication method: a passport strategy under its name. Each says success (an
 * identity), fail (credentials of its kind were presented and are bad, with kube's reason
 * as the challenge) or pass (none of its kind).
 */
export type AuthenticationMethod = PassportStrategy & { readonly name: string };

/** The base of the methods written here (passport-strategy's), with the name they are registered under. */
export abstract class AuthenticationStrategy extends Strategy {
  abstract readonly name: string;
}

/**
 * The audiences a request is authenticated for, when they are not the API's own: a
 * TokenReview's `spec.audiences` (kube's authenticator.WithAudiences).
 */
export const AUDIENCES = Symbol('authentication audiences');
/** Set by a strategy that checked audiences: those of the requested ones the credential is valid for. */
export const AUTHENTICATED_AUDIENCES = Symbol('authenticated audiences');

export function requestedAudiences(req: Request): string[] | undefined {
  return (req as unknown as Record<symbol, string[] | undefined>)[AUDIENCES];
}

export function setAuthenticatedAudiences(req: Request, audiences: string[]): void {
  (req as unknown as Record<symbol, string[]>)[AUTHENTICATED_AUDIENCES] = audiences;
}

/** Set by a strategy whose credential expires (a JWT's exp), in ms: a cached success ends then. */
export const CREDENTIAL_NOT_AFTER = Symbol('credential not after');

export function setCredentialNotAfter(req: Request, ms: number): void {
  (req as unknown as Record<symbol, number>)[CREDENTIAL_NOT_AFTER] = ms;
}

/** When the credential a strategy accepted expires, in ms, if it said. */
export function credentialNotAfter(req: Request): number | undefined {
  return (req as unknown as Record<symbol, number | undefined>)[CREDENTIAL_NOT_AFTER];
}
