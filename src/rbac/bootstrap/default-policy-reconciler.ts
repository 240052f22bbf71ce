import { Injectable, Logger } from '@nestjs/common';
import { StatusError } from '../../apimachinery/errors';
import { ResourceRegistry } from '../../registry/resources/registry';
import { ResourceStorage, Target, WriteOptions } from '../../registry/rest/storage';
import { ResourceType } from '../../runtime/schema/resource-type';
import { KubeObject } from '../../apimachinery/types';
import { SYSTEM_USER } from '../../apimachinery/user-info';
import { clusterRoleBindingType, clusterRoleType } from '../kinds/kinds';
import { ClusterRole, ClusterRoleBinding, RBAC_GROUP, RBAC_VERSION } from '../../apis/rbac/types';
import { defaultClusterRoleBindings, defaultClusterRoles } from './default-policy';
import { reconcileClusterRole, reconcileClusterRoleBinding, ReconcileOperation } from './reconcile';

/** The field manager of the server's own writes (kube: its loopback client, "kube-apiserver"). */
export const SERVER_FIELD_MANAGER = 'platform-authz-apiserver';

/** Attempts per object when other replicas write the same objects at the same time. */
const MAX_ATTEMPTS = 10;

export interface ReconcileOutcome {
  kind: string;
  name: string;
  operation: ReconcileOperation;
  protected: boolean;
}

function isStatus(err: unknown, code: number, reason?: string): boolean {
  return err instanceof StatusError && err.code === code && (reason === undefined || err.reason === reason);
}

/**
 * Creates missing default ClusterRoles and ClusterRoleBindings and adds what stored ones
 * lack (see reconcile.ts), through each kind's storage as the server itself. Several
 * replicas may run it at once: every write names the version it read, and a conflict,
 * a concurrent create or a concurrent delete re-reads and decides again.
 */
@Injectable()
export class DefaultPolicyReconciler {
  private readonly logger = new Logger('DefaultPolicy');

  constructor(private readonly registry: ResourceRegistry) {}

  async reconcile(): Promise<ReconcileOutcome[]> {
    const outcomes: ReconcileOutcome[] = [];
    for (const role of defaultClusterRoles()) outcomes.push(await this.reconcileRole(role));
    for (const binding of defaultClusterRoleBindings()) outcomes.push(await this.reconcileBinding(binding));
    return outcomes;
  }

  private async reconcileRole(expected: ClusterRole): Promise<ReconcileOutcome> {
    const name = expected.metadata.name!;
    const { storage, target } = this.access(clusterRoleType, name);
    return this.retrying('clusterrole', name, async () => {
      const existing = (await this.read(storage, target)) as ClusterRole | null;
      const result = reconcileClusterRole(existing, expected);
      const outcome = { kind: 'ClusterRole', name, operation: result.operation, protected: result.protected };
      if (result.protected) {
        if (result.operation !== 'None') {
          const missing = JSON.stringify(result.missingRules);
          this.logger.warn(`skipped reconcile-protected clusterrole.${RBAC_GROUP}/${name} with missing permissions: ${missing}`);
        }
        return outcome;
      }
      if (result.operation === 'Create') {
        await storage.create!(target, result.role, this.writeOptions());
        this.logger.log(`created clusterrole.${RBAC_GROUP}/${name}`);
      } else if (result.operation === 'Update') {
        await storage.update!(target, result.role, this.writeOptions());
        this.logger.log(`updated clusterrole.${RBAC_GROUP}/${name} with additional permissions: ${JSON.stringify(result.missingRules)}`);
      }
      return outcome;
    });
  }

  private async reconcileBinding(expected: ClusterRoleBinding): Promise<ReconcileOutcome> {
    const name = expected.metadata.name!;
    const { storage, target } = this.access(clusterRoleBindingType, name);
    return this.retrying('clusterrolebinding', name, async () => {
      const existing = (await this.read(storage, target)) as ClusterRoleBinding | null;
      const result = reconcileClusterRoleBinding(existing, expected);
      const outcome = { kind: 'ClusterRoleBinding', name, operation: result.operation, protected: result.protected };
      if (result.protected) {
        if (result.operation !== 'None') {
          const missing = JSON.stringify(result.missingSubjects);
          this.logger.warn(`skipped reconcile-protected clusterrolebinding.${RBAC_GROUP}/${name} with missing subjects: ${missing}`);
        }
        return outcome;
      }
      switch (result.operation) {
        case 'Create':
          await storage.create!(target, result.binding, this.writeOptions());
          this.logger.log(`created clusterrolebinding.${RBAC_GROUP}/${name}`);
          break;
        case 'Update':
          await storage.update!(target, result.binding, this.writeOptions());
          this.logger.log(`updated clusterrolebinding.${RBAC_GROUP}/${name} with additional subjects: ${JSON.stringify(result.missingSubjects)}`);
          break;
        case 'Recreate': {
          // roleRef is immutable: delete exactly the version read, then create.
          const preconditions = { uid: existing!.metadata.uid, resourceVersion: existing!.metadata.resourceVersion };
          await storage.delete!(target, { ...this.writeOptions(), preconditions });
          await storage.create!(target, result.binding, this.writeOptions());
          this.logger.log(`recreated clusterrolebinding.${RBAC_GROUP}/${name}`);
          break;
        }
        default:
          break;
      }
      return outcome;
    });
  }

  /**
   * Runs one read-decide-write step until it goes through: a conflict (someone wrote in
   * between), AlreadyExists (someone created it) or NotFound (someone deleted it) means
   * reading again.
   */
  private async retrying(resource: string, name: string, step: () => Promise<ReconcileOutcome>): Promise<ReconcileOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await step();
      } catch (err) {
        const raced = isStatus(err, 409) || isStatus(err, 404);
        if (!raced || attempt >= MAX_ATTEMPTS) {
          throw new Error(`unable to reconcile ${resource}.${RBAC_GROUP}/${name}: ${(err as Error).message}`);
        }
      }
    }
  }

  private async read(storage: ResourceStorage, target: Target): Promise<KubeObject | null> {
    try {
      return await storage.get!(target, { user: SYSTEM_USER });
    } catch (err) {
      if (isStatus(err, 404)) return null;
      throw err;
    }
  }

  private access(type: ResourceType, name: string): { storage: ResourceStorage; target: Target } {
    const entry = this.registry.lookup(RBAC_GROUP, RBAC_VERSION, type.plural);
    const storage = entry?.storage;
    if (!storage?.get || !storage.create || !storage.update || !storage.delete) throw new Error(`${type.plural} are not served`);
    return { storage, target: { type, groupResource: { group: RBAC_GROUP, resource: type.plural }, namespace: '', name } };
  }

  private writeOptions(): WriteOptions {
    return { user: SYSTEM_USER, dryRun: false, fieldManager: SERVER_FIELD_MANAGER };
  }
}
