import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { storageResource } from '../../apimachinery/store-key';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { Namespace, namespaceType } from '../../core/namespace';
import { CelEnvironment } from '../../cel';
import { AuthorizationAttributes, AuthorizationResult } from '../../authorization/authorizer';
import { StoreFollowingState } from '../../authorization/decision-consistency';
import { compileMatchCondition, matchConditionEnvironment } from '../../authorization/webhook/match-conditions';
import { Informer } from '../../storage/informer/informer';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { CompiledGuardrail, decideWithGuardrails, NamespaceLabels } from './compiled-guardrail';
import { AccessGuardrail } from './guardrail-types';

/** Where guardrails are stored (the access group's plural). */
export const GUARDRAILS_RESOURCE = storageResource({ group: 'access.platform.io', plural: 'accessguardrails' });

/**
 * The guardrails in force in this process: the shared informer of AccessGuardrails, each
 * compiled once when it arrives (sorted by name, so the first denier is stable), and the
 * namespace cache for namespace selectors. With no guardrail a decision is one length check.
 */
@Injectable()
export class GuardrailState implements BeforeApplicationShutdown {
  private readonly guardrails: Informer<AccessGuardrail>;
  private readonly namespaces: Informer<Namespace>;
  private readonly removeHandler: () => void;
  private readonly byName = new Map<string, CompiledGuardrail>();
  private compiled: CompiledGuardrail[] = [];
  private started: Promise<void> | null = null;
  private environment: CelEnvironment | undefined;
  readonly withSelectors: boolean;

  constructor(factory: SharedInformerFactory, @Inject(SERVER_OPTIONS) options: ServerOptions) {
    this.withSelectors = options.featureGates.enabled('AuthorizeWithSelectors');
    this.guardrails = factory.informerFor<AccessGuardrail>(GUARDRAILS_RESOURCE);
    this.namespaces = factory.informerFor<Namespace>(storageResource(namespaceType));
    this.removeHandler = this.guardrails.addEventHandler({
      onAdd: (obj) => this.put(obj),
      onUpdate: (_old, obj) => this.put(obj),
      onDelete: (obj) => {
        this.byName.delete(obj.metadata?.name ?? '');
        this.order();
      },
    });
  }

  /** The CEL environment of conditions (the authorization webhook's match conditions' one). */
  async celEnvironment(): Promise<CelEnvironment> {
    return (this.environment ??= await matchConditionEnvironment(this.withSelectors));
  }

  /** Compiles a condition with the environment; throws CelCompileError. Needs celEnvironment() first. */
  compile = (expression: string) => compileMatchCondition(this.environment!, expression);

  /** Resolves once the guardrails and namespaces are listed. */
  ready(): Promise<void> {
    this.started ??= this.celEnvironment()
      .then(() => Promise.all([this.guardrails.start(), this.namespaces.start()]))
      .then(
        () => {
          // Objects that arrived before the environment existed are compiled now.
          for (const obj of this.guardrails.list()) if (!this.byName.has(obj.metadata?.name ?? '')) this.put(obj);
        },
        (err) => {
          this.started = null;
          throw err;
        },
      );
    return this.started;
  }

  /** The guardrails in force, by name. */
  get all(): readonly CompiledGuardrail[] {
    return this.compiled;
  }

  readonly namespaceLabels: NamespaceLabels = (namespace) => this.namespaces.get('', namespace)?.metadata?.labels;

  /** The names of the namespaces that exist now. */
  namespaceNames(): string[] {
    return this.namespaces.list().map((n) => n.metadata?.name ?? '');
  }

  /** The decision of the guardrails in force (or of `guardrails`, a set about to be written). */
  decide(attrs: AuthorizationAttributes, guardrails: readonly CompiledGuardrail[] = this.compiled): AuthorizationResult {
    if (guardrails.length === 0) return { decision: 'NoOpinion', reason: '' };
    return decideWithGuardrails(guardrails, attrs, this.namespaceLabels, this.withSelectors);
  }

  /** A guardrail compiled as the authorizer would hold it. */
  compileGuardrail(object: AccessGuardrail): CompiledGuardrail {
    return new CompiledGuardrail(object, this.compile);
  }

  readonly followsStore: StoreFollowingState = {
    appliedRevision: () => {
      const a = this.guardrails.appliedRevision();
      const b = this.namespaces.appliedRevision();
      return a < b ? a : b;
    },
    waitForRevision: async (revision, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      await this.ready();
      for (const informer of [this.guardrails, this.namespaces]) {
        if (!(await informer.waitForRevision(revision.toString(), Math.max(0, deadline - Date.now())))) return false;
      }
      return true;
    },
  };

  beforeApplicationShutdown(): void {
    this.removeHandler();
  }

  private put(obj: AccessGuardrail): void {
    if (!this.environment) return;
    this.byName.set(obj.metadata?.name ?? '', this.compileGuardrail(obj));
    this.order();
  }

  private order(): void {
    this.compiled = [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
