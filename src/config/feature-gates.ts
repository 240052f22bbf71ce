/**
 * `--feature-gates=Name=true,Other=false`, with the feature gate lifecycle of the
 * conventions, all gates in one registry (KNOWN_FEATURES): alpha gates default off, beta
 * on; a GA gate is locked on (disabling it stops the start) and warns when set; a
 * deprecated gate warns when set (locked ones cannot be changed); an unknown gate (never
 * known, or removed after its window) stops the start. `AllAlpha` and `AllBeta` set every
 * gate of that stage the same flag does not name, as in kube.
 */
export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** GA (and some deprecated) gates cannot be changed from their default. */
  lockToDefault?: boolean;
}

/** The gates this server knows; names and stages follow kube 1.32 where the spec is silent. */
export const KNOWN_FEATURES = {
  /** gzip for get/list responses. */
  APIResponseCompression: { default: true, stage: 'BETA' },
  /** Selectors in authorization attributes and access reviews (spec: alpha, off by default). */
  AuthorizeWithSelectors: { default: false, stage: 'ALPHA' },
  /** Node authorizer limits node/pod reads by selectors (needs AuthorizeWithSelectors). */
  AuthorizeNodeWithSelectors: { default: false, stage: 'ALPHA' },
  /** `sendInitialEvents` on watch. */
  WatchList: { default: true, stage: 'BETA' },
  /** `--authorization-config`. */
  StructuredAuthorizationConfiguration: { default: true, stage: 'BETA' },
  /** `--authentication-config`. */
  StructuredAuthenticationConfiguration: { default: true, stage: 'BETA' },
  /** `anonymous.conditions` in the authentication configuration. */
  AnonymousAuthConfigurableEndpoints: { default: false, stage: 'ALPHA' },
  /** `impersonate:<mode>` and `impersonate-on:<mode>:<verb>` before the legacy `impersonate` (kube 1.36: beta, on). */
  ConstrainedImpersonation: { default: true, stage: 'BETA' },
  ServerSideApply: { default: true, stage: 'GA', lockToDefault: true },
  ServerSideFieldValidation: { default: true, stage: 'GA', lockToDefault: true },
  APIListChunking: { default: true, stage: 'GA', lockToDefault: true },
  DryRun: { default: true, stage: 'GA', lockToDefault: true },
} satisfies Record<string, FeatureSpec>;

export type FeatureName = keyof typeof KNOWN_FEATURES;

/** kube's switches for every gate of a stage. */
const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

/**
 * The gates as kube's `--feature-gates` help lists them: `Name=true|false (STAGE - default=x)`,
 * sorted, with AllAlpha and AllBeta; GA and deprecated gates are not listed.
 */
export function featureGateHelpLines(): string[] {
  const lines = Object.entries(KNOWN_FEATURES as Record<string, FeatureSpec>)
    .filter(([, spec]) => spec.stage === 'ALPHA' || spec.stage === 'BETA')
    .map(([name, spec]) => `${name}=true|false (${spec.stage} - default=${spec.default})`);
  lines.push(`${ALL_ALPHA}=true|false (ALPHA - default=false)`, `${ALL_BETA}=true|false (BETA - default=false)`);
  return lines.sort();
}

export class FeatureGateError extends Error {}

/** The effective value of every known gate plus warnings for the operator. */
export class FeatureGates {
  private constructor(
    private readonly values: Record<FeatureName, boolean>,
    readonly warnings: string[],
  ) {}

  static defaults(): FeatureGates {
    return FeatureGates.from({});
  }

  /** Parses the flag value (`A=true,B=false`); unknown names and bad values throw. */
  static parse(text: string): FeatureGates {
    const requested: Record<string, boolean> = {};
    for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
      const eq = part.indexOf('=');
      if (eq < 0) throw new FeatureGateError(`missing bool value for ${part}`);
      const name = part.slice(0, eq).trim();
      const value = part.slice(eq + 1).trim().toLowerCase();
      if (value !== 'true' && value !== 'false') throw new FeatureGateError(`invalid value of ${name}=${value}, err: invalid syntax`);
      requested[name] = value === 'true';
    }
    return FeatureGates.from(requested);
  }

  static from(requested: Record<string, boolean>): FeatureGates {
    const values = Object.fromEntries(Object.entries(KNOWN_FEATURES).map(([k, v]) => [k, v.default])) as Record<FeatureName, boolean>;
    const warnings: string[] = [];
    for (const [all, stage] of [[ALL_ALPHA, 'ALPHA'], [ALL_BETA, 'BETA']] as const) {
      if (requested[all] === undefined) continue;
      for (const [name, spec] of Object.entries(KNOWN_FEATURES as Record<string, FeatureSpec>)) {
        if (spec.stage === stage && !(name in requested)) values[name as FeatureName] = requested[all];
      }
    }
    for (const [name, value] of Object.entries(requested)) {
      if (name === ALL_ALPHA || name === ALL_BETA) continue;
      const spec: FeatureSpec | undefined = (KNOWN_FEATURES as Record<string, FeatureSpec>)[name];
      if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && value !== spec.default) {
        throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
      if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      values[name as FeatureName] = value;
    }
    return new FeatureGates(values, warnings);
  }

  enabled(name: FeatureName): boolean {
    return this.values[name];
  }

  /** `name=value` pairs, for logs and /flagz-like output. */
  toString(): string {
    return Object.entries(this.values)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  }
}
