import { ArgumentsHost } from '@nestjs/common';
import { decodeApplyConfiguration } from '../../../src/runtime/apply/apply-request';
import { warningHeaderValue } from '../../../src/endpoints/handlers/warnings';
import { StatusExceptionFilter } from '../../../src/endpoints/filters/status.filter';
import { fromColumn, toColumn } from '../../../src/storage/mvcc/object-column';
import { configMapType } from '../../../src/core/kinds/config-map';
import { statusOf } from '../../support/status-of';

describe('Warning headers', () => {
  it('carry the text as its UTF-8 bytes, quotes and backslashes escaped, as kube writes them', () => {
    const value = warningHeaderValue('unknown field "€\\x"')!;
    expect(Buffer.from(value, 'latin1').toString('utf8')).toBe('299 - "unknown field \\"€\\\\x\\""');
    expect([...value].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true);
  });

  it('are dropped when the text has control characters, which a header cannot carry', () => {
    expect(warningHeaderValue('unknown field "a\u0000b"')).toBeUndefined();
    expect(warningHeaderValue('bell\u0007')).toBeUndefined();
    expect(warningHeaderValue('line 1\nline 2')).toBe('299 - "line 1 line 2"');
  });
});

describe('objects in jsonb columns', () => {
  it('are stored as themselves unless their JSON has an escape jsonb refuses', () => {
    const plain = JSON.stringify({ metadata: { name: 'a' }, data: { k: 'v\\u0000 as text' } });
    expect(toColumn(plain)).toBe(plain);
  });

  it('round-trip NUL and half surrogate pairs through a wrapper', () => {
    const object = { metadata: { name: 'a' }, data: { k: 'a\u0000b', s: '\udc00', ok: '😀' } };
    const column = toColumn(JSON.stringify(object));
    expect(column).not.toMatch(/(?<!\\)\\u0000/);
    expect(fromColumn(JSON.parse(column))).toEqual(object);
  });
});

describe('errors that are not Status errors', () => {
  it('are a 500 whose message does not repeat the cause (a driver\'s text stays in the log)', () => {
    const filter = new StatusExceptionFilter();
    (filter as unknown as { logger: { error: () => void } }).logger = { error: () => undefined };
    const sent: { code?: number; body?: string } = {};
    const res = {
      headersSent: false,
      setHeader: () => res,
      getHeader: () => undefined,
      status: (code: number) => ((sent.code = code), res),
      end: (body: string) => (sent.body = body),
    };
    const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => ({ headers: {}, query: {} }) }) } as unknown as ArgumentsHost;
    filter.catch(new Error('invalid byte sequence for encoding "UTF8": 0x00'), host);
    expect(sent.code).toBe(500);
    const status = JSON.parse(sent.body!);
    expect(status).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500 });
    expect(status.message).toMatch(/^Internal error occurred: /);
    expect(status.message).not.toMatch(/UTF8|0x00/);
  });
});

describe('apply configurations', () => {
  const target = { namespace: 'default', name: 'c' };
  const apply = (yaml: string) => () => decodeApplyConfiguration(Buffer.from(yaml), configMapType, target);

  it('need whole integers that fit their field, as kube\'s conversion to the Go type does', () => {
    for (const generation of ['1.5', '99999999999999999999', '.inf']) {
      const err = statusOf(apply(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, generation: ${generation}}\n`));
      expect(err.code).toBe(400);
    }
    expect(statusOf(apply('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, generation: 1.5}\n')).message).toBe(
      'failed to create typed patch object (default/c; /v1, Kind=ConfigMap): .metadata.generation: cannot convert float64 to int64',
    );
    expect(apply('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, generation: 3}\n')().config).toMatchObject({ metadata: { generation: 3 } });
  });
});
