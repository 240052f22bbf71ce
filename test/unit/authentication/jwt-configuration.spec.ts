import { FieldError, fieldErrorMessage } from '../../../src/apimachinery/field-errors';
import { decodeAuthenticationConfiguration } from '../../../src/authentication/jwt/decode';
import { authenticationEnvironments } from '../../../src/authentication/jwt/expressions';
import { AuthenticationConfigError, loadAuthenticationConfiguration } from '../../../src/authentication/jwt/load';
import { jwtAuthenticatorFromFlags, loadStartupJwtAuthentication } from '../../../src/authentication/jwt/startup';
import { AuthenticationConfiguration, JWTAuthenticator } from '../../../src/authentication/jwt/types';
import { validateAuthenticationConfiguration } from '../../../src/authentication/jwt/validation';
import { FlagError, parseServerFlags } from '../../../src/config/flags';
import { defaultOptions } from '../../../src/config/options';

const parse = (args: string[]) => parseServerFlags(args, {});
const rejects = (args: string[], message: string) => {
  expect(() => parse(args)).toThrow(FlagError);
  expect(() => parse(args)).toThrow(message);
};

describe('the --oidc-* and --authentication-config flags', () => {
  it('reads the OIDC flags with kube defaults', () => {
    expect(parse([]).oidc).toEqual({ usernameClaim: 'sub', requiredClaims: [], signingAlgs: ['RS256'] });
    const options = parse([
      '--oidc-issuer-url=https://issuer.example',
      '--oidc-client-id=platform',
      '--oidc-username-claim=email',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      '--oidc-required-claim=hd=example.com',
      '--oidc-required-claim=tier=gold,env=prod',
      '--oidc-signing-algs=RS256,ES256',
    ]);
    expect(options.oidc).toMatchObject({
      issuerUrl: 'https://issuer.example',
      clientId: 'platform',
      usernameClaim: 'email',
      groupsClaim: 'groups',
      groupsPrefix: 'oidc:',
      requiredClaims: [
        ['hd', 'example.com'],
        ['tier', 'gold'],
        ['env', 'prod'],
      ],
      signingAlgs: ['RS256', 'ES256'],
    });
  });

  it('refuses HMAC and none as signing algorithms, and malformed required claims', () => {
    rejects(['--oidc-signing-algs=HS256'], 'invalid argument "HS256" for "--oidc-signing-algs" flag: oidc: unsupported signing alg: HS256');
    rejects(['--oidc-signing-algs=RS256,none'], 'oidc: unsupported signing alg: none');
    rejects(['--oidc-required-claim=novalue'], 'novalue must be formatted as key=value');
  });

  it('needs the issuer and the client id together', () => {
    rejects(['--oidc-issuer-url=https://issuer.example'], 'oidc-issuer-url and oidc-client-id must be specified together');
    rejects(['--oidc-client-id=platform'], 'oidc-issuer-url and oidc-client-id must be specified together');
  });

  it('excludes every --oidc-* flag with --authentication-config, and needs the gate', () => {
    for (const flag of ['--oidc-issuer-url=https://x', '--oidc-username-claim=email', '--oidc-signing-algs=ES256', '--oidc-ca-file=/ca.pem']) {
      rejects(['--authentication-config=/etc/authn.yaml', flag], 'authentication-config file and oidc-* flags are mutually exclusive');
    }
    rejects(
      ['--authentication-config=/etc/authn.yaml', '--feature-gates=StructuredAuthenticationConfiguration=false'],
      'set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file',
    );
    expect(parse(['--authentication-config=/etc/authn.yaml']).authenticationConfigFile).toBe('/etc/authn.yaml');
  });

  it('translates the flags into one JWT authenticator with kube prefix rules', () => {
    const base = defaultOptions().oidc;
    const of = (overrides: Partial<typeof base>) => jwtAuthenticatorFromFlags({ ...base, issuerUrl: 'https://issuer.example', clientId: 'platform', ...overrides }, '');
    expect(of({}).claimMappings.username).toEqual({ claim: 'sub', prefix: 'https://issuer.example#', expression: '' });
    expect(of({ usernamePrefix: '' }).claimMappings.username.prefix).toBe('https://issuer.example#');
    expect(of({ usernameClaim: 'email' }).claimMappings.username.prefix).toBe('');
    expect(of({ usernamePrefix: 'corp:' }).claimMappings.username.prefix).toBe('corp:');
    expect(of({ usernamePrefix: '-' }).claimMappings.username.prefix).toBe('');
    const translated = of({ groupsClaim: 'roles', requiredClaims: [['hd', 'example.com']] });
    expect(translated.claimMappings.groups).toEqual({ claim: 'roles', prefix: '', expression: '' });
    expect(translated.claimValidationRules).toEqual([{ claim: 'hd', requiredValue: 'example.com', expression: '', message: '' }]);
    expect(translated.issuer.audiences).toEqual(['platform']);
  });
});

describe('loading the --oidc-* flags at start', () => {
  const oidcOptions = (caFile: string) =>
    defaultOptions({ oidc: { ...defaultOptions().oidc, issuerUrl: 'https://issuer.example', clientId: 'platform', caFile } });

  it('names --oidc-ca-file when it cannot be read or holds no certificate', async () => {
    await expect(loadStartupJwtAuthentication(oidcOptions('/nonexistent/ca.pem'))).rejects.toThrow('--oidc-ca-file: open /nonexistent/ca.pem: no such file or directory');
    await expect(loadStartupJwtAuthentication(oidcOptions(__filename))).rejects.toThrow('--oidc-ca-file: data does not contain any valid RSA or ECDSA certificates');
  });

  it('has no JWT authenticator without an issuer', async () => {
    expect((await loadStartupJwtAuthentication(defaultOptions())).loaded.configuration).toEqual({ jwt: [] });
  });
});

describe('decoding an AuthenticationConfiguration', () => {
  it('decodes v1 and v1beta1', () => {
    for (const version of ['v1', 'v1beta1']) {
      const config = decodeAuthenticationConfiguration(
        `apiVersion: apiserver.config.platform.io/${version}\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: "https://a", audiences: [x]}\n  claimMappings: {username: {claim: sub, prefix: ""}}\n`,
      );
      expect(config.jwt[0].issuer).toEqual({ url: 'https://a', discoveryURL: '', certificateAuthority: '', audiences: ['x'], audienceMatchPolicy: '' });
      expect(config.jwt[0].claimMappings.username).toEqual({ claim: 'sub', prefix: '', expression: '' });
    }
  });

  it('rejects unknown fields, wrong types and other kinds strictly', () => {
    const head = 'apiVersion: apiserver.config.platform.io/v1\nkind: AuthenticationConfiguration\n';
    const problemOf = (body: string) => {
      try {
        decodeAuthenticationConfiguration(`${head}${body}`);
        return 'decoded';
      } catch (err) {
        return (err as Error).message;
      }
    };
    // Every unknown field together, in document order, with its path (list items indexed).
    expect(problemOf('jwt:\n- issuer: {url: "https://a", bogus: 1}\n  extra: 2\nanonymous: {enabled: true, why: x}\n')).toBe(
      'strict decoding error: unknown field "jwt[0].issuer.bogus", unknown field "jwt[0].extra", unknown field "anonymous.why"',
    );
    // The first value of the wrong type alone, named by its innermost struct and field path, as Go does.
    expect(problemOf('jwt:\n- bogus: 1\n  issuer: {url: 5}\n')).toBe('json: cannot unmarshal number into Go struct field Issuer.jwt.issuer.url of type string');
    expect(problemOf('jwt:\n- issuer: {url: "https://a", audienceMatchPolicy: 1}\n')).toBe(
      'json: cannot unmarshal number into Go struct field Issuer.jwt.issuer.audienceMatchPolicy of type v1.AudienceMatchPolicyType',
    );
    expect(problemOf('jwt: [5]\n')).toBe('json: cannot unmarshal number into Go struct field AuthenticationConfiguration.jwt of type v1.JWTAuthenticator');
    expect(problemOf('jwt:\n- claimMappings: {username: {claim: [sub]}}\n')).toBe(
      'json: cannot unmarshal array into Go struct field PrefixedClaimOrExpression.jwt.claimMappings.username.claim of type string',
    );
    expect(problemOf('anonymous: {enabled: "yes"}\n')).toBe('json: cannot unmarshal string into Go struct field AnonymousAuthConfig.anonymous.enabled of type bool');
    expect(() => decodeAuthenticationConfiguration('apiVersion: apiserver.config.platform.io/v1\nkind: AuthorizationConfiguration\n')).toThrow(
      'no kind "AuthorizationConfiguration" is registered for version "apiserver.config.platform.io/v1"',
    );
    expect(() => decodeAuthenticationConfiguration('')).toThrow('empty config data');
  });
});

describe('validating an AuthenticationConfiguration', () => {
  const jwt = (overrides: Partial<JWTAuthenticator> = {}, url = 'https://issuer.example'): JWTAuthenticator => ({
    issuer: { url, discoveryURL: '', certificateAuthority: '', audiences: ['platform'], audienceMatchPolicy: '' },
    claimValidationRules: [],
    claimMappings: { username: { claim: 'sub', prefix: '', expression: '' }, groups: { claim: '', expression: '' }, uid: { claim: '', expression: '' }, extra: [] },
    userValidationRules: [],
    ...overrides,
  });
  const errors = async (config: AuthenticationConfiguration, anonymousConfigurable = false): Promise<string[]> => {
    const envs = await authenticationEnvironments();
    return validateAuthenticationConfiguration({ envs, disallowedIssuers: ['https://sa.example'], anonymousConfigurable }, config).errors.map((e: FieldError) => fieldErrorMessage(e));
  };

  it('accepts a valid configuration and an empty one', async () => {
    expect(await errors({ jwt: [jwt()] })).toEqual([]);
    expect(await errors({ jwt: [] })).toEqual([]);
  });

  it('limits the authenticators to 64 with unique issuers and discovery URLs', async () => {
    const many = Array.from({ length: 65 }, (_, i) => jwt({}, `https://issuer-${i}.example`));
    expect(await errors({ jwt: many })).toEqual(['jwt: Too many: must have at most 64 items']);
    const a = jwt();
    a.issuer.discoveryURL = 'https://discovery.example/.well-known/openid-configuration';
    const b = jwt();
    b.issuer.discoveryURL = a.issuer.discoveryURL;
    expect(await errors({ jwt: [a, b] })).toEqual([
      'jwt[1].issuer.url: Duplicate value: "https://issuer.example"',
      'jwt[1].issuer.discoveryURL: Duplicate value: "https://discovery.example/.well-known/openid-configuration"',
    ]);
  });

  it('checks issuer URLs as kube does', async () => {
    const discoveryEqual = jwt();
    discoveryEqual.issuer.discoveryURL = 'https://issuer.example/';
    expect(await errors({ jwt: [discoveryEqual] })).toEqual(['jwt[0].issuer.discoveryURL: Invalid value: "https://issuer.example/": discoveryURL must be different from URL']);
    expect(await errors({ jwt: [jwt({}, 'https://sa.example')] })).toEqual([
      'jwt[0].issuer.url: Invalid value: "https://sa.example": URL must not overlap with disallowed issuers: [https://sa.example]',
    ]);
    expect(await errors({ jwt: [jwt({}, 'https://u:p@issuer.example/x?q=1')] })).toEqual([
      'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example/x?q=1": URL must not contain a username or password',
      'jwt[0].issuer.url: Invalid value: "https://u:p@issuer.example/x?q=1": URL must not contain a query',
    ]);
    expect(await errors({ jwt: [jwt({}, '')] })).toEqual(['jwt[0].issuer.url: Required value']);
    const noAudiences = jwt();
    noAudiences.issuer.audiences = [];
    expect(await errors({ jwt: [noAudiences] })).toEqual(['jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required']);
    const badCa = jwt();
    badCa.issuer.certificateAuthority = 'not a pem';
    expect(await errors({ jwt: [badCa] })).toEqual(['jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates']);
  });

  it('requires claims.email_verified wherever claims.email names the user', async () => {
    const mappings = (username: string, extra: string[] = []) =>
      jwt({
        claimMappings: {
          username: { claim: '', expression: username },
          groups: { claim: '', expression: '' },
          uid: { claim: '', expression: '' },
          extra: extra.map((valueExpression, i) => ({ key: `example.com/k${i}`, valueExpression })),
        },
      });
    expect(await errors({ jwt: [mappings('claims.email')] })).toEqual([
      'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
    ]);
    expect(await errors({ jwt: [mappings('claims.email_verified == true ? claims.email : ""')] })).toEqual([]);
    expect(await errors({ jwt: [mappings('claims.?email.orValue("")', ['string(claims.email_verified)'])] })).toEqual([]);
  });

  it('checks mappings, extra keys and rules', async () => {
    const config = jwt({
      claimValidationRules: [
        { claim: 'hd', requiredValue: 'x', expression: 'true', message: '' },
        { claim: '', requiredValue: '', expression: '', message: '' },
        { claim: 'hd', requiredValue: 'x', expression: '', message: 'm' },
      ],
      claimMappings: {
        username: { claim: 'sub', expression: 'claims.sub' },
        groups: { claim: '', prefix: 'p', expression: 'claims.groups' },
        uid: { claim: 'uid', expression: 'claims.uid' },
        extra: [
          { key: 'Example.com/Upper', valueExpression: 'claims.x' },
          { key: 'nodomain', valueExpression: 'claims.x' },
          { key: 'example.com/dup', valueExpression: 'claims.x' },
          { key: 'example.com/dup', valueExpression: 'claims.y' },
          { key: 'kubernetes.io/x', valueExpression: '' },
        ],
      },
      userValidationRules: [
        { expression: 'user.username != ""', message: '' },
        { expression: 'user.username != ""', message: '' },
      ],
    });
    expect(await errors({ jwt: [config] })).toEqual([
      `jwt[0].claimValidationRules[0]: Invalid value: "hd": claim and expression can't both be set`,
      'jwt[0].claimValidationRules[1]: Required value: claim or expression is required',
      'jwt[0].claimValidationRules[2].message: Invalid value: "m": may not be specified when claim is set',
      `jwt[0].claimMappings.username: Invalid value: "": claim and expression can't both be set`,
      'jwt[0].claimMappings.groups.prefix: Invalid value: "p": may not be specified when expression is set',
      `jwt[0].claimMappings.uid: Invalid value: "": claim and expression can't both be set`,
      'jwt[0].claimMappings.extra[0].key: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      'jwt[0].claimMappings.extra[0].key: Invalid value: "Example.com/Upper": must be lowercase',
      'jwt[0].claimMappings.extra[1].key: Invalid value: "nodomain": must be a domain-prefixed path (such as "acme.io/foo")',
      'jwt[0].claimMappings.extra[3].key: Duplicate value: "example.com/dup"',
      'jwt[0].claimMappings.extra[4].key: Invalid value: "kubernetes.io/x": platform.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
      'jwt[0].claimMappings.extra[4].valueExpression: Required value',
      'jwt[0].userValidationRules[1].expression: Duplicate value: "user.username != \\"\\""',
    ]);
  });

  it('checks the anonymous settings against the gate', async () => {
    expect(await errors({ jwt: [], anonymous: { enabled: true, conditions: [] } })).toEqual([
      'anonymous: Forbidden: anonymous is not supported when AnonymousAuthConfigurableEndpoints feature gate is disabled',
    ]);
    expect(await errors({ jwt: [], anonymous: { enabled: false, conditions: [{ path: '/livez' }, { path: '/livez' }] } }, true)).toEqual([
      'anonymous.conditions: Invalid value: [{"path":"/livez"},{"path":"/livez"}]: enabled should be set to true when conditions are defined',
      'anonymous.conditions[1].path: Duplicate value: "/livez"',
    ]);
  });

  it('loads a file into one error listing every problem', async () => {
    const data = `apiVersion: apiserver.config.platform.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer: {url: "http://a.example", audiences: [x]}
  claimMappings: {username: {expression: "claims.sub +"}}
`;
    const failure = loadAuthenticationConfiguration(data, { disallowedIssuers: [], anonymousConfigurable: false });
    await expect(failure).rejects.toThrow(AuthenticationConfigError);
    await expect(failure).rejects.toThrow(/^\[jwt\[0\]\.issuer\.url: Invalid value: "http:\/\/a\.example": URL scheme must be https, jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "claims\.sub \+": compilation failed: /);
  });
});
