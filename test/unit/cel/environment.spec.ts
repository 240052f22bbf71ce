import { CelCompileError, CelEnvironment, CelEvaluationError } from '../../../src/cel';

const requestSchema = {
  user: 'string',
  groups: 'list<string>',
  uid: 'string',
  extra: 'map<string, list<string>>',
  resourceAttributes: { namespace: 'string', verb: 'string', group: 'string', resource: 'string', name: 'string' },
  nonResourceAttributes: { path: 'string', verb: 'string' },
};

describe('CEL environment', () => {
  let env: CelEnvironment;
  beforeAll(async () => {
    env = await CelEnvironment.create({ variables: { request: { schema: requestSchema }, limit: 'int', items: 'list<int>' } });
  });

  const request = {
    user: 'alice',
    groups: ['dev', 'system:authenticated'],
    uid: '',
    extra: { 'example.org/team': ['a'] },
    resourceAttributes: { namespace: 'ns', verb: 'get', group: '', resource: 'pods', name: 'p' },
  };

  it('compiles once and evaluates many times with typed variables', () => {
    const program = env.compile('request.user == "alice" && "dev" in request.groups', { returnTypes: ['bool'] });
    expect(program.outputType).toBe('bool');
    expect(program.evaluate({ request })).toBe(true);
    expect(program.evaluate({ request: { ...request, user: 'bob' } })).toBe(false);
  });

  it('supports the macros has, all, exists, map and filter', () => {
    const cases: Array<[string, unknown]> = [
      ['has(request.resourceAttributes)', true],
      ['has(request.nonResourceAttributes)', false],
      ['request.groups.all(g, g.startsWith("s") || g == "dev")', true],
      ['request.groups.exists(g, g == "dev")', true],
      ['request.groups.map(g, g.size())', [3n, 20n]],
      ['request.groups.filter(g, g.startsWith("system:"))', ['system:authenticated']],
      ['"example.org/team" in request.extra', true],
    ];
    for (const [expression, expected] of cases) expect(env.compile(expression).evaluate({ request })).toEqual(expected);
  });

  it('rejects unknown fields and bad types at compile time with kube-style messages', () => {
    expect(() => env.compile('request.usr == "x"')).toThrow(CelCompileError);
    expect(() => env.compile('request.usr == "x"')).toThrow(/^compilation failed: .*usr/);
    expect(() => env.compile('request.user', { returnTypes: ['bool'] })).toThrow('must evaluate to bool but got string');
    expect(() => env.compile('request.user ==')).toThrow(/^compilation failed: /);
    expect(() => env.compile('1 + "a"')).toThrow(/compilation failed: .*overload/);
    const err = (() => {
      try {
        env.compile('request.user.matches("[")');
      } catch (e) {
        return e as CelCompileError;
      }
    })();
    expect(err?.type).toBe('Invalid');
    expect(err?.detail).toMatch(/^compilation failed: error parsing regexp/);
  });

  it('reports evaluation errors as CelEvaluationError', () => {
    const program = env.compile('request.nonResourceAttributes.path == "/x"');
    expect(() => program.evaluate({ request })).toThrow(CelEvaluationError);
    expect(() => program.evaluate({ request })).toThrow(/nonResourceAttributes/);
    expect(() => env.compile('limit / 0 == 1').evaluate({ limit: 1n })).toThrow(/division by zero/);
  });

  it('stops an expression that exceeds its cost budget', () => {
    const program = env.compile('items.all(a, items.all(b, items.all(c, a + b + c >= 0)))');
    const items = Array.from({ length: 60 }, (_, i) => BigInt(i));
    expect(program.evaluate({ items: items.slice(0, 5) })).toBe(true);
    expect(() => program.evaluate({ items })).toThrow('operation cancelled: actual cost limit exceeded');
    expect(() => program.evaluate({ items: items.slice(0, 20) }, { costLimit: 1000 })).toThrow('operation cancelled: actual cost limit exceeded');
    expect(program.evaluate({ items: items.slice(0, 20) }, { costLimit: 1_000_000 })).toBe(true);
  });

  it('stops an expression that exceeds its time budget', () => {
    const program = env.compile('items.all(a, items.all(b, a + b >= 0))');
    const items = Array.from({ length: 3000 }, (_, i) => BigInt(i));
    expect(() => program.evaluate({ items }, { costLimit: Number.MAX_SAFE_INTEGER, timeLimitMs: 20 })).toThrow(
      'operation interrupted: evaluation time limit exceeded',
    );
  });
});

describe('CEL budgets cannot be absorbed', () => {
  it('fails an evaluation whose budget ran out even where CEL would absorb the error', async () => {
    const env = await CelEnvironment.create({ variables: { items: 'list<int>' } });
    const items = Array.from({ length: 200 }, (_, i) => BigInt(i));
    const program = env.compile('items.all(a, items.all(b, a + b >= 0)) || true');
    expect(program.evaluate({ items: items.slice(0, 3) })).toBe(true);
    expect(() => program.evaluate({ items }, { costLimit: 5000 })).toThrow('operation cancelled: actual cost limit exceeded');
  });
});

describe('CEL environments for other configurations', () => {
  it('serves the authentication configuration shape: dynamic claims and a typed user', async () => {
    const env = await CelEnvironment.create({
      variables: {
        claims: 'map<string, dyn>',
        user: { schema: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' } },
      },
    });
    const claims = { sub: 'u1', email: 'a@example.com', email_verified: true, groups: ['x', 'y'], nested: { team: 'blue' } };
    expect(env.compile('has(claims.email) && claims.email_verified == true', { returnTypes: ['bool'] }).evaluate({ claims })).toBe(true);
    expect(env.compile("claims.groups.map(g, 'oidc:' + g)").evaluate({ claims })).toEqual(['oidc:x', 'oidc:y']);
    expect(env.compile('has(claims.missing)').evaluate({ claims })).toBe(false);
    expect(env.compile('claims.nested.team').evaluate({ claims })).toBe('blue');
    const user = { username: 'system:admin', uid: '', groups: [], extra: {} };
    expect(env.compile("!user.username.startsWith('system:')", { returnTypes: ['bool'] }).evaluate({ user })).toBe(false);
    expect(() => env.compile("claims.sub + 'x'", { returnTypes: ['string', 'list<string>'] })).not.toThrow();
    expect(() => env.compile('1 + 1', { returnTypes: ['string', 'list<string>'] })).toThrow('must evaluate to one of [string list<string>]');
  });
});
