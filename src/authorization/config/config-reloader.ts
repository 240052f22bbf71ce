import { ConfigFileReloader } from '../../config/config-file-reloader';
import { authorizationConfigMetrics } from '../../metrics/authorization-config-metrics';
import { readAuthorizationConfigFile } from './load';
import { AuthorizationConfiguration } from './types';

export type { ReloadOutcome } from '../../config/config-file-reloader';

export interface ReloaderOptions {
  path: string;
  intervalMs: number;
  /** Decodes and validates file contents; throws when they are not a valid configuration. */
  load(data: string): Promise<AuthorizationConfiguration>;
  /** Builds and installs the chain of a new configuration; throws when that is impossible. */
  apply(config: AuthorizationConfiguration): Promise<void>;
}

/** The `--authorization-config` reload loop: the shared one, with the authorization controller's metrics. */
export class AuthorizationConfigReloader extends ConfigFileReloader<AuthorizationConfiguration> {
  constructor(options: ReloaderOptions, initialData: string, initialConfig: AuthorizationConfiguration) {
    super({ ...options, subject: 'authorization config', read: readAuthorizationConfigFile, record: authorizationConfigMetrics }, initialData, initialConfig);
  }
}
