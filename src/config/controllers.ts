/**
 * The controllers `--controllers` names, in kube-controller-manager's syntax: `*` is every
 * controller that is on by default, `name` turns one on, `-name` turns one off; the first
 * entry naming a controller decides. kube keeps the two bootstrap-token controllers off by
 * default, and so does this server.
 */
export const SERVICE_ACCOUNT_CONTROLLER = 'serviceaccount';
export const SERVICE_ACCOUNT_TOKEN_CONTROLLER = 'serviceaccount-token';
export const TOKEN_CLEANER_CONTROLLER = 'tokencleaner';
export const BOOTSTRAP_SIGNER_CONTROLLER = 'bootstrapsigner';
/** Deletes time-bound bindings once --expired-binding-retention has passed their valid-until. */
export const BINDING_EXPIRY_CONTROLLER = 'binding-expiry';
/** Grants approved access requests with time-bound bindings; deletes ended ones after --access-request-retention. */
export const ACCESS_REQUEST_CONTROLLER = 'access-request-controller';

/** Records AccessChange history (who gained and lost what, through which change) on the leader. */
export const ACCESS_HISTORY_CONTROLLER = 'access-history';

export const KNOWN_CONTROLLERS = [
  ACCESS_HISTORY_CONTROLLER,
  ACCESS_REQUEST_CONTROLLER,
  BINDING_EXPIRY_CONTROLLER,
  BOOTSTRAP_SIGNER_CONTROLLER,
  SERVICE_ACCOUNT_CONTROLLER,
  SERVICE_ACCOUNT_TOKEN_CONTROLLER,
  TOKEN_CLEANER_CONTROLLER,
];
export const DISABLED_BY_DEFAULT_CONTROLLERS = [BOOTSTRAP_SIGNER_CONTROLLER, TOKEN_CLEANER_CONTROLLER];

/** kube's IsControllerEnabled. */
export function controllerEnabled(controllers: readonly string[], name: string): boolean {
  let star = false;
  for (const entry of controllers) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star && !DISABLED_BY_DEFAULT_CONTROLLERS.includes(name);
}
