import { ACCESS_HISTORY_CONTROLLER, ACCESS_REQUEST_CONTROLLER, BINDING_EXPIRY_CONTROLLER, DISABLED_BY_DEFAULT_CONTROLLERS, KNOWN_CONTROLLERS } from '../controllers';
import { commaList, duration, flag, SECTION, strings, subsystem } from './flag';

/** kube's --controllers: `*`, a name, or `-name`; unknown names are refused (kube's words). */
function controllerList(value: string): string[] {
  const list = commaList(value);
  for (const entry of list) {
    if (entry === '*') continue;
    const name = entry.replace(/^-/, '');
    if (!KNOWN_CONTROLLERS.includes(name)) throw new Error(`${JSON.stringify(name)} is not in the list of known controllers`);
  }
  return list;
}

/** kube-controller-manager's GenericControllerManagerConfiguration, for the controllers this server runs. */
export const controllers = subsystem({
  section: SECTION.generic,
  flags: {
    /** In kube's syntax (`*`, `name`, `-name`); see controllerEnabled. */
    controllers: flag({
      name: 'controllers',
      ...strings(controllerList),
      default: ['*'],
      usage: `A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. All controllers: ${KNOWN_CONTROLLERS.join(', ')}. Disabled-by-default controllers: ${DISABLED_BY_DEFAULT_CONTROLLERS.join(', ')}.`,
    }),
    /** 0 keeps expired bindings forever. */
    expiredBindingRetentionMs: flag({
      name: 'expired-binding-retention',
      ...duration,
      default: 24 * 3600_000,
      usage: `How long the ${BINDING_EXPIRY_CONTROLLER} controller keeps a RoleBinding or ClusterRoleBinding after its valid-until annotation has passed, before deleting it. 0 keeps expired bindings forever.`,
    }),
    /** 0 keeps ended access requests forever. */
    accessRequestRetentionMs: flag({
      name: 'access-request-retention',
      ...duration,
      default: 90 * 24 * 3600_000,
      usage: `How long the ${ACCESS_REQUEST_CONTROLLER} keeps an AccessRequest or ClusterAccessRequest after it ended (Expired, Denied, Revoked or Canceled), as the history of who had which access, before deleting it. 0 keeps them forever.`,
    }),
    /** 0 keeps access history forever. */
    accessHistoryRetentionMs: flag({
      name: 'access-history-retention',
      ...duration,
      default: 90 * 24 * 3600_000,
      usage: `How long the ${ACCESS_HISTORY_CONTROLLER} controller keeps an AccessChange (a permission gained or lost) before deleting it. 0 keeps them forever.`,
    }),
  },
});
