import { FieldError, fieldErrorMessage } from '../../../src/apimachinery/field-errors';
import { StrategyContext } from '../../../src/runtime/schema/resource-type';
import { validateObjectMeta } from '../../../src/apimachinery/validation/object-meta';
import { SYSTEM_USER } from '../../../src/apimachinery/user-info';
import { LABEL_METADATA_NAME, Namespace, namespaceType } from '../../../src/core/namespace';
import { parseJsonDocument } from '../../../src/runtime/document/json-document';
import { decodeBySchema } from '../../../src/runtime/schema/schema-decoder';

const messages = (errs: FieldError[]) => errs.map(fieldErrorMessage);
const ctx: StrategyContext = { user: SYSTEM_USER, namespace: '', dryRun: false };
const strategy = namespaceType.strategy;

describe('namespaceType', () => {
  it('is the cluster-scoped core kind Namespace', () => {
    expect(namespaceType).toMatchObject({
      group: '',
      version: 'v1',
      kind: 'Namespace',
      listKind: 'NamespaceList',
      plural: 'namespaces',
      singular: 'namespace',
      shortNames: ['ns'],
      namespaced: false,
      deleteReturnsObject: true,
    });
    expect([...namespaceType.verbs].sort()).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    expect(strategy.allowCreateOnUpdate).toBe(false);
    expect(strategy.allowUnconditionalUpdate).toBe(true);
  });

  it('names must be DNS labels', () => {
    expect(namespaceType.nameValidator('team-a', false)).toEqual([]);
    const errs = validateObjectMeta({ name: 'Bad_Name' }, { namespaced: false, nameValidator: namespaceType.nameValidator });
    expect(errs).toHaveLength(1);
    expect(errs[0].field).toBe('metadata.name');
    expect(namespaceType.nameValidator('a.b', false)).toEqual(['must not contain dots']);
  });
});

describe('namespace strategy', () => {
  it('on create: phase Active, kubernetes finalizer, name label; client status dropped', () => {
    const ns: Namespace = { metadata: { name: 'team-a', labels: { [LABEL_METADATA_NAME]: 'spoofed' } }, status: { phase: 'Terminating' } };
    strategy.prepareForCreate!(ns, ctx);
    expect(ns.status).toEqual({ phase: 'Active' });
    expect(ns.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(ns.metadata.labels).toEqual({ [LABEL_METADATA_NAME]: 'team-a' });
  });

  it('on create: keeps client finalizers and adds kubernetes once', () => {
    const ns: Namespace = { metadata: { name: 'a' }, spec: { finalizers: ['example.com/x'] } };
    strategy.prepareForCreate!(ns, ctx);
    expect(ns.spec!.finalizers).toEqual(['example.com/x', 'kubernetes']);
    const again: Namespace = { metadata: { name: 'a' }, spec: { finalizers: ['kubernetes'] } };
    strategy.prepareForCreate!(again, ctx);
    expect(again.spec!.finalizers).toEqual(['kubernetes']);
  });

  it('on update: finalizers and status stay as stored, the name label is restored', () => {
    const old: Namespace = {
      metadata: { name: 'a', labels: { [LABEL_METADATA_NAME]: 'a' } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
    const next: Namespace = { metadata: { name: 'a', labels: { team: 'x' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } };
    strategy.prepareForUpdate!(next, old, ctx);
    expect(next.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(next.status).toEqual({ phase: 'Active' });
    expect(next.metadata.labels).toEqual({ team: 'x', [LABEL_METADATA_NAME]: 'a' });
    next.spec!.finalizers!.push('changed');
    expect(old.spec!.finalizers).toEqual(['kubernetes']);
  });

  it('accepts standard and domain-qualified finalizers', () => {
    const ns: Namespace = { metadata: { name: 'a' }, spec: { finalizers: ['kubernetes', 'orphan', 'foregroundDeletion', 'example.com/x'] } };
    expect(strategy.validate(ns, ctx)).toEqual([]);
    expect(strategy.validate({ metadata: { name: 'a' } }, ctx)).toEqual([]);
  });

  it('rejects an unqualified non-standard finalizer, naming the list', () => {
    const errs = strategy.validate({ metadata: { name: 'a' }, spec: { finalizers: ['custom'] } }, ctx);
    expect(messages(errs)).toEqual(['spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']);
    expect(errs[0].type).toBe('FieldValueInvalid');
  });

  it('rejects a finalizer that is no qualified name', () => {
    const errs = strategy.validate({ metadata: { name: 'a' }, spec: { finalizers: ['bad name/x y'] } }, ctx);
    expect(errs.map((e) => e.field)).toEqual(['spec.finalizers', 'spec.finalizers']);
    expect(fieldErrorMessage(errs[0])).toMatch(/^spec\.finalizers: Invalid value: "bad name\/x y": prefix part a lowercase RFC 1123 subdomain/);
  });

  it('a wrongly typed spec is a decode error naming the Go type, before validation', () => {
    const decoded = decodeBySchema(parseJsonDocument('{"metadata":{"name":"a"},"spec":{"finalizers":"kubernetes"}}'), namespaceType.schema, {
      strict: true,
      dialect: 'json',
      rootTypeName: 'v1.Namespace',
    });
    expect(decoded.typeError).toBe('json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName');
  });
});
