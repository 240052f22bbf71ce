import { KubeObject } from '../../apimachinery/types';
import { ADMISSION_PLUGINS } from '../../config/options';
import { Target, WriteOptions } from './storage';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionRequest {
  operation: AdmissionOperation;
  target: Target;
  /** The object after defaulting (CREATE/UPDATE) or the stored one (DELETE). */
  object: KubeObject;
  old?: KubeObject;
  options: WriteOptions;
  /**
   * CREATE: the name the request path carried ('' for a POST to a collection, the name for
   * a PUT or apply that creates); `target.name` is the new object's name either way.
   */
  pathName?: string;
}

/** A validating admission plugin: throws a StatusError to refuse. */
export interface AdmissionPlugin {
  readonly name: string;
  admit(request: AdmissionRequest): Promise<void>;
}

/**
 * The validating admission plugins the generic storage runs on every create, update and
 * delete of every kind: cross-cutting plugins only (a check of particular kinds wraps
 * their storage instead). The plugins `order` names (the server's is ADMISSION_PLUGINS,
 * kube's order: NamespaceLifecycle, then NodeRestriction) run in that order whatever
 * order their modules register them in; any other plugin (a test's recorder) runs after
 * them, in registration order.
 */
export class AdmissionChain {
  private plugins: AdmissionPlugin[] = [];

  constructor(private readonly order: readonly string[] = ADMISSION_PLUGINS) {}

  register(plugin: AdmissionPlugin): void {
    if (this.plugins.some((p) => p.name === plugin.name)) throw new Error(`admission plugin ${plugin.name} registered twice`);
    const rank = (p: AdmissionPlugin) => (this.order.includes(p.name) ? this.order.indexOf(p.name) : this.order.length);
    // Array.prototype.sort is stable: unordered plugins keep their registration order.
    this.plugins = [...this.plugins, plugin].sort((a, b) => rank(a) - rank(b));
  }

  /** The registered plugins' names, in the order they run. */
  names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  async admit(request: AdmissionRequest): Promise<void> {
    for (const plugin of this.plugins) await plugin.admit(request);
  }
}
