import { statusOf } from '../../support/status-of';
import { OptionsSource, parseRequestWriteOptions } from '../../../src/registry/options/request-options';

const parse = (src: Partial<OptionsSource>) => parseRequestWriteOptions({ verb: 'create', query: {}, headers: {}, ...src });

describe('write options', () => {
  it('defaults: no dry run, fieldValidation Warn', () => {
    expect(parse({})).toEqual({ dryRun: false, fieldValidation: 'Warn', fieldManager: undefined });
    expect(parse({ query: { dryRun: 'All', fieldValidation: 'Strict', fieldManager: 'me' } })).toEqual({
      dryRun: true,
      fieldValidation: 'Strict',
      fieldManager: 'me',
    });
    expect(parse({ query: { fieldValidation: '' } })?.fieldValidation).toBe('Warn');
  });

  it("a bad dryRun or fieldValidation is kube's 422 Invalid on the options kind", () => {
    const dryRun = statusOf(() => parse({ query: { dryRun: 'Some' } }));
    expect([dryRun.code, dryRun.reason, dryRun.message]).toEqual([
      422,
      'Invalid',
      'CreateOptions.meta.platform.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
    ]);
    expect(dryRun.details).toEqual({
      group: 'meta.platform.io',
      kind: 'CreateOptions',
      causes: [{ reason: 'FieldValueNotSupported', field: 'dryRun', message: 'Unsupported value: []string{"Some"}: supported values: "All"' }],
    });
    const validation = statusOf(() => parse({ verb: 'update', query: { fieldValidation: 'Loud' } }));
    expect(validation.message).toBe(
      'UpdateOptions.meta.platform.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });

  it('fieldManager is at most 128 bytes of printable characters', () => {
    expect(statusOf(() => parse({ query: { fieldManager: 'm'.repeat(129) } })).message).toBe(
      'CreateOptions.meta.platform.io "" is invalid: fieldManager: Too long: must have at most 128 bytes',
    );
    expect(statusOf(() => parse({ query: { fieldManager: 'a\u0001' } })).message).toBe(
      'CreateOptions.meta.platform.io "" is invalid: fieldManager: Invalid value: "a\\x01": invalid character U+0001 (at position 1)',
    );
  });

  it('PATCH: the type is checked first (415), force only for apply, apply needs a fieldManager', () => {
    expect(statusOf(() => parse({ verb: 'patch', headers: { 'content-type': 'text/plain' }, query: { dryRun: 'x' } })).code).toBe(415);
    const force = statusOf(() => parse({ verb: 'patch', headers: { 'content-type': 'application/merge-patch+json' }, query: { force: 'true' } }));
    expect(force.message).toBe('PatchOptions.meta.platform.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const manager = statusOf(() => parse({ verb: 'patch', headers: { 'content-type': 'application/apply-patch+yaml' } }));
    expect(manager.message).toBe('PatchOptions.meta.platform.io "" is invalid: fieldManager: Required value: is required for apply patch');
    expect(parse({ verb: 'patch', headers: { 'content-type': 'application/apply-patch+yaml' }, query: { fieldManager: 'm', force: 'true' } })).toMatchObject({
      force: true,
      fieldManager: 'm',
    });
  });

  it('PUT and PATCH read If-Match', () => {
    expect(parse({ verb: 'update', headers: { 'if-match': '"12"' } })?.ifMatch).toBe('12');
    expect(statusOf(() => parse({ verb: 'update', headers: { 'if-match': 'abc' } })).code).toBe(400);
  });

  it('DELETE reads DeleteOptions from the body when there is one, else from the query', () => {
    const body = Buffer.from(JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], propagationPolicy: 'Background', preconditions: { uid: 'u' } }));
    expect(parse({ verb: 'delete', body, query: { dryRun: 'nonsense' } })).toEqual({
      dryRun: true,
      fieldValidation: 'Warn',
      delete: { preconditions: { uid: 'u', resourceVersion: undefined }, propagationPolicy: 'Background', gracePeriodSeconds: undefined },
    });
    expect(parse({ verb: 'delete', query: { dryRun: 'All', gracePeriodSeconds: '0' } })).toMatchObject({ dryRun: true, delete: { gracePeriodSeconds: 0 } });
    expect(statusOf(() => parse({ verb: 'delete', query: { propagationPolicy: 'Later' } })).message).toBe(
      'DeleteOptions.meta.platform.io "" is invalid: propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    expect(statusOf(() => parse({ verb: 'delete', body: Buffer.from('{"gracePeriodSeconds":"x"}') })).message).toBe(
      'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    );
  });

  it('DELETE: each query option, and each error', () => {
    const del = (query: Record<string, unknown>) => parse({ verb: 'delete', query });
    expect(del({})).toEqual({
      dryRun: false,
      fieldValidation: 'Warn',
      delete: { preconditions: undefined, propagationPolicy: undefined, gracePeriodSeconds: undefined },
    });
    // kube's BeforeDelete takes a negative grace period as one second.
    expect(del({ gracePeriodSeconds: '-1' })?.delete?.gracePeriodSeconds).toBe(1);
    const soon = statusOf(() => del({ gracePeriodSeconds: 'soon' }));
    expect([soon.code, soon.reason, soon.message]).toEqual([400, 'BadRequest', 'gracePeriodSeconds: strconv.ParseInt: parsing "soon": invalid syntax']);
    for (const policy of ['Foreground', 'Background', 'Orphan']) expect(del({ propagationPolicy: policy })?.delete?.propagationPolicy).toBe(policy);
    // The deprecated orphanDependents=true is the Orphan policy; it may not be given with one.
    expect(del({ orphanDependents: 'true' })?.delete?.propagationPolicy).toBe('Orphan');
    expect(del({ orphanDependents: 'false' })?.delete?.propagationPolicy).toBeUndefined();
    const both = statusOf(() => del({ orphanDependents: 'true', propagationPolicy: 'Orphan' }));
    expect([both.code, both.message]).toEqual([
      422,
      'DeleteOptions.meta.platform.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    ]);
    expect(statusOf(() => del({ dryRun: 'x' })).message).toBe(
      'DeleteOptions.meta.platform.io "" is invalid: dryRun: Unsupported value: []string{"x"}: supported values: "All"',
    );
  });

  it('DELETE: preconditions come from the body; a body that is not JSON is 400', () => {
    const body = Buffer.from('{"preconditions":{"resourceVersion":"5"},"gracePeriodSeconds":3}');
    expect(parse({ verb: 'delete', body })?.delete).toEqual({
      preconditions: { uid: undefined, resourceVersion: '5' },
      propagationPolicy: undefined,
      gracePeriodSeconds: 3,
    });
    // Empty preconditions are none.
    expect(parse({ verb: 'delete', body: Buffer.from('{"preconditions":{}}') })?.delete?.preconditions).toBeUndefined();
    const bad = statusOf(() => parse({ verb: 'delete', body: Buffer.from('{bad') }));
    expect(bad.code).toBe(400);
    expect(bad.message).toMatch(/^couldn't get version\/kind; json parse error: /);
  });

  it("force is read by kube's boolean rule; PATCH and PUT carry no DeleteOptions", () => {
    const apply = (force: string) => parse({ verb: 'patch', headers: { 'content-type': 'application/apply-patch+yaml' }, query: { fieldManager: 'm', force } });
    for (const off of ['false', 'False', '0']) expect(apply(off)?.force).toBe(false);
    for (const on of ['1', 'true', 'True', 'f', 'no', '']) expect(apply(on)?.force).toBe(true);
    expect(parse({ verb: 'update' })).not.toHaveProperty('delete');
  });
});
