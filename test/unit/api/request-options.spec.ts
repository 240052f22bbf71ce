import { statusOf } from '../../support/status-of';
import { OptionsSource, parseRequestWriteOptions } from '../../../src/api/request/request-options';

const parse = (src: Partial<OptionsSource>) => parseRequestWriteOptions({ method: 'POST', query: {}, headers: {}, ...src });

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
    const validation = statusOf(() => parse({ method: 'PUT', query: { fieldValidation: 'Loud' } }));
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
    expect(statusOf(() => parse({ method: 'PATCH', headers: { 'content-type': 'text/plain' }, query: { dryRun: 'x' } })).code).toBe(415);
    const force = statusOf(() => parse({ method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, query: { force: 'true' } }));
    expect(force.message).toBe('PatchOptions.meta.platform.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    const manager = statusOf(() => parse({ method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml' } }));
    expect(manager.message).toBe('PatchOptions.meta.platform.io "" is invalid: fieldManager: Required value: is required for apply patch');
    expect(parse({ method: 'PATCH', headers: { 'content-type': 'application/apply-patch+yaml' }, query: { fieldManager: 'm', force: 'true' } })).toMatchObject({
      force: true,
      fieldManager: 'm',
    });
  });

  it('PUT and PATCH read If-Match', () => {
    expect(parse({ method: 'PUT', headers: { 'if-match': '"12"' } })?.ifMatch).toBe('12');
    expect(statusOf(() => parse({ method: 'PUT', headers: { 'if-match': 'abc' } })).code).toBe(400);
  });

  it('DELETE reads DeleteOptions from the body when there is one, else from the query', () => {
    const body = Buffer.from(JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], propagationPolicy: 'Background', preconditions: { uid: 'u' } }));
    expect(parse({ method: 'DELETE', body, query: { dryRun: 'nonsense' } })).toEqual({
      dryRun: true,
      fieldValidation: 'Warn',
      delete: { preconditions: { uid: 'u', resourceVersion: undefined }, propagationPolicy: 'Background', gracePeriodSeconds: undefined },
    });
    expect(parse({ method: 'DELETE', query: { dryRun: 'All', gracePeriodSeconds: '0' } })).toMatchObject({ dryRun: true, delete: { gracePeriodSeconds: 0 } });
    expect(statusOf(() => parse({ method: 'DELETE', query: { propagationPolicy: 'Later' } })).message).toBe(
      'DeleteOptions.meta.platform.io "" is invalid: propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    expect(statusOf(() => parse({ method: 'DELETE', body: Buffer.from('{"gracePeriodSeconds":"x"}') })).message).toBe(
      'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    );
  });
});
