import { Authorizer } from '../authorizer';
import { AuthorizerFactories } from '../authorizer-factories';
import { AuthorizationConfiguration, AuthorizerConfiguration } from './types';

/**
 * Types whose authorizers hold state built at start (the RBAC index, the node graph, the
 * ABAC policy file): built once and kept across reloads, so a reload can neither add nor
 * drop them. Webhooks are rebuilt on every reload; AlwaysAllow/AlwaysDeny are stateless.
 */
const STARTUP_ONLY_TYPES = new Set(['Node', 'RBAC', 'ABAC']);

/** Guardrails deny before every other authorizer unless the configuration places them itself. */
const GUARDRAIL_TYPE = 'Guardrail';

function withGuardrailFirst(config: AuthorizationConfiguration, factories: AuthorizerFactories): AuthorizerConfiguration[] {
  if (!factories.has(GUARDRAIL_TYPE) || config.authorizers.some((a) => a.type === GUARDRAIL_TYPE)) return config.authorizers;
  return [{ type: GUARDRAIL_TYPE, name: GUARDRAIL_TYPE.toLowerCase() }, ...config.authorizers];
}

/** Builds chains from configurations, keeping the stateful authorizers of the first one. */
export class ConfiguredAuthorizers {
  private readonly kept = new Map<string, Authorizer>();
  private started = false;

  constructor(private readonly factories: AuthorizerFactories) {}

  /** The non-webhook types of the configuration the server started with. */
  get startupTypes(): ReadonlySet<string> {
    return new Set([...this.kept.keys()]);
  }

  /**
   * The chain for a configuration. The first call builds everything; later calls (reloads)
   * build new webhooks and reuse the rest. On failure what was built is closed again.
   */
  async build(config: AuthorizationConfiguration): Promise<Authorizer[]> {
    const fresh: Authorizer[] = [];
    const chain: Authorizer[] = [];
    const startupKept = new Map<string, Authorizer>();
    try {
      for (const entry of withGuardrailFirst(config, this.factories)) {
        const kept = this.kept.get(entry.type);
        if (kept) {
          chain.push(kept);
          continue;
        }
        if (this.started && STARTUP_ONLY_TYPES.has(entry.type)) {
          throw new Error(`authorizer type ${entry.type} is not allowed if it was not enabled at initial server startup`);
        }
        const authorizer = await this.factories.build(this.entryFor(entry));
        fresh.push(authorizer);
        chain.push(authorizer);
        // An implicit guardrail authorizer is not part of the configuration a reload must keep.
        if (!this.started && entry.type !== 'Webhook' && config.authorizers.includes(entry)) startupKept.set(entry.type, authorizer);
      }
    } catch (err) {
      for (const authorizer of fresh) await authorizer.close?.();
      throw err;
    }
    if (!this.started) {
      for (const [type, authorizer] of startupKept) this.kept.set(type, authorizer);
      this.started = true;
    }
    return chain;
  }

  /** Of a replaced chain, the authorizers the new one no longer uses (to be closed). */
  static retired(previous: readonly Authorizer[], next: readonly Authorizer[]): Authorizer[] {
    return previous.filter((a) => !next.includes(a));
  }

  private entryFor(entry: AuthorizerConfiguration) {
    return { type: entry.type, name: entry.name, ...(entry.webhook ? { config: { webhook: entry.webhook } } : {}) };
  }
}
