import { EMPTY_RUNTIME_CONFIG, parseRuntimeConfig, RuntimeConfig } from '../runtime-config';
import { bool, flag, FlagUse, SECTION, subsystem } from './flag';

/** kube's APIEnablementOptions: which APIs are served, and where. */
export const apiEnablement = subsystem({
  section: SECTION.apiEnablement,
  flags: {
    /** API versions and resources turned on or off (checked against the served kinds at start). */
    runtimeConfig: flag({
      name: 'runtime-config',
      type: 'mapStringString',
      // Repeated flags add up, as pflag's map flags do.
      parse: (value: string, { previous }: FlagUse<RuntimeConfig>) => parseRuntimeConfig(value, previous ? structuredClone(previous) : undefined),
      default: EMPTY_RUNTIME_CONFIG,
      usage: [
        'A set of key=value pairs that enable or disable built-in APIs. Supported options are:',
        'v1=true|false for the core API group',
        '<group>/<version>=true|false for a specific API group and version (e.g. rbac.authorization.platform.io/v1=true)',
        '<group>/<version>/<resource>=false for one resource of a group version',
        'api/all=true|false controls all API versions',
        'api/ga=true|false controls all API versions of the form v[0-9]+',
        'api/beta=true|false controls all API versions of the form v[0-9]+beta[0-9]+',
        'api/alpha=true|false controls all API versions of the form v[0-9]+alpha[0-9]+',
      ].join('\n'),
    }),
    /** Also answer the review kinds at kube's `authorization.k8s.io` and `authentication.k8s.io` paths, where kubectl posts them. */
    kubectlReviewAliases: flag({
      name: 'kubectl-review-aliases',
      ...bool,
      section: SECTION.generic,
      default: true,
      usage: 'Also answer the access reviews and SelfSubjectReview at the authorization.k8s.io and authentication.k8s.io paths kubectl posts to (not listed in discovery).',
    }),
  },
});
