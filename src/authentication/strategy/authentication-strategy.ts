import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Strategy as PassportStrategy } from 'passport';
import { Strategy } from 'passport-strategy';

/**
 * An authentication method: a passport strategy under its name. Each says success (an
 * identity, with what it learned of the credential as passport's `info`), fail (credentials
 * of its kind were presented and are bad, with kube's reason as the challenge) or pass (none
 * of its kind).
 */
export type AuthenticationMethod = PassportStrategy & { readonly name: string };

/**
 * A request as the union's methods read it: its headers and connection, and for a
 * TokenReview the token and audiences it gives (kube's authenticator.WithAudiences).
 */
export interface CredentialRequest {
  readonly headers: IncomingHttpHeaders;
  readonly socket: Socket;
  /** The identity headers one by one, as Node makes them (the request-header method reads them). */
  readonly headersDistinct: NodeJS.Dict<string[]>;
  /** A reviewed token as it is given: read before any header, whose parsing would cut it at a space. */
  readonly presentedToken?: string;
  /** The audiences asked for when they are not the API's own: a TokenReview's `spec.audiences`. */
  readonly audiences?: string[];
}

/** What a method's success says of the credential besides the user (passport's `info`). */
export interface AuthenticationInfo {
  /** Of the audiences asked for, those the credential is valid for (said by the methods that check audiences). */
  readonly audiences?: string[];
  /** When the credential itself expires, in ms (a JWT's `exp`): a cached success ends then. */
  readonly notAfter?: number;
  /** The connection's client certificate proved the user: later requests on the connection are that user. */
  readonly connection?: boolean;
  /** The token cache answered: nothing to cache again. */
  readonly cached?: boolean;
}

/** The base of the methods written here (passport-strategy's), with the name they are registered under. */
export abstract class AuthenticationStrategy extends Strategy {
  abstract readonly name: string;
  abstract authenticate(req: CredentialRequest, options?: unknown): void;
}
