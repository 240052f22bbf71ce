import { Injectable } from '@nestjs/common';
import { Authorizer } from './authorizer';

/**
 * One entry of the chain as configured: from `--authorization-mode` (type = the mode,
 * name = its lower-case form, as kube names them) or from an `--authorization-config`
 * file (`authorizers[]`, whose `webhook` block travels in `config`).
 */
export interface AuthorizerEntry {
  type: string;
  name: string;
  config?: Record<string, unknown>;
}

export type AuthorizerFactory = (entry: AuthorizerEntry) => Authorizer | Promise<Authorizer>;

/** Factories for each authorizer type, registered by the modules that implement them. */
@Injectable()
export class AuthorizerFactories {
  private readonly factories = new Map<string, AuthorizerFactory>();

  register(type: string, factory: AuthorizerFactory): void {
    if (this.factories.has(type)) throw new Error(`authorizer type ${type} registered twice`);
    this.factories.set(type, factory);
  }

  has(type: string): boolean {
    return this.factories.has(type);
  }

  async build(entry: AuthorizerEntry): Promise<Authorizer> {
    const factory = this.factories.get(entry.type);
    if (!factory) throw new Error(`unknown authorizer type "${entry.type}"; known types: ${[...this.factories.keys()].join(', ')}`);
    return factory(entry);
  }
}
