import { Clock, systemClock } from '../apimachinery/clock';
import { BINDING_EXPIRY_CONTROLLER } from '../config/controllers';
import { recordExpiredBindingDeleted } from '../metrics/binding-expiry-metrics';
import { bindingWindow, VALID_UNTIL_ANNOTATION } from '../apis/rbac/binding-window';
import { clusterRoleBindingType, roleBindingType } from '../rbac/kinds/kinds';
import { RoleBinding } from '../apis/rbac/types';
import { Controller, ControllerContext } from './controller-context';

export const BINDING_EXPIRY_USER = BINDING_EXPIRY_CONTROLLER;

/** The bindings with a valid-until annotation: each sync reads those, not every binding. */
const TIME_BOUND_INDEX = 'binding-expiry/valid-until';
const TIME_BOUND = 'valid-until';
const timeBound = (binding: RoleBinding): string[] => (Object.hasOwn(binding.metadata.annotations ?? {}, VALID_UNTIL_ANNOTATION) ? [TIME_BOUND] : []);

/**
 * Deletes time-bound bindings once `retentionMs` has passed their valid-until. Expired
 * bindings already grant nothing (the window is checked at each decision); this only keeps
 * them from piling up, and leaves them around a while so their owners can see what
 * expired. Each sync asks to run again when the next one falls due, so the runner sleeps
 * until then instead of polling.
 */
export class BindingExpiryController implements Controller {
  readonly name = BINDING_EXPIRY_CONTROLLER;
  readonly watches = [roleBindingType, clusterRoleBindingType];

  constructor(
    private readonly ctx: ControllerContext,
    private readonly retentionMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async sync(): Promise<number | void> {
    const now = this.clock.now();
    let next: number | undefined;
    for (const type of this.watches) {
      for (const binding of this.ctx.byIndex<RoleBinding>(type, TIME_BOUND_INDEX, timeBound, TIME_BOUND)) {
        if (binding.metadata.deletionTimestamp) continue;
        const { validUntil } = bindingWindow(binding);
        // Without a readable valid-until there is nothing to wait for.
        if (validUntil === undefined || !Number.isFinite(validUntil)) continue;
        const due = validUntil + this.retentionMs;
        if (due > now) {
          next = Math.min(next ?? due, due);
          continue;
        }
        if (await this.ctx.delete(type, binding)) recordExpiredBindingDeleted();
      }
    }
    return next;
  }
}
