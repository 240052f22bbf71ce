import { PassThrough } from 'node:stream';
import { assignAuditId } from '../../../src/endpoints/request/audit-id';
import { goDurationText, KubeLogger } from '../../../src/server/logging';

function capture() {
  const out = new PassThrough();
  const lines: string[] = [];
  out.on('data', (c: Buffer) => lines.push(...c.toString().split('\n').filter(Boolean)));
  return { out, lines };
}

describe('the server log', () => {
  it("writes klog's text lines, structured fields quoted", () => {
    const { out, lines } = capture();
    const logger = new KubeLogger(2, 'text', out);
    logger.log('serving securely on 127.0.0.1:6443', 'Server');
    logger.info(2, 'httplog', 'HTTP', { verb: 'LIST', URI: '/api/v1/pods', resp: 200, user: undefined });
    logger.warn('careful', 'Authorization');
    logger.error('broken', 'Storage');
    expect(lines[0]).toMatch(/^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ Server\] serving securely on 127\.0\.0\.1:6443$/);
    expect(lines[1]).toMatch(/ httplog\] "HTTP" verb="LIST" URI="\/api\/v1\/pods" resp=200$/);
    expect(lines[2]).toMatch(/^W\d{4} .* Authorization\] careful$/);
    expect(lines[3]).toMatch(/^E\d{4} .* Storage\] broken$/);
  });

  it('writes one JSON object per line with --logging-format=json', () => {
    const { out, lines } = capture();
    const logger = new KubeLogger(2, 'json', out);
    logger.info(2, 'httplog', 'HTTP', { verb: 'GET', resp: 404 });
    logger.log('reloaded', 'Authorization');
    const [http, reload] = lines.map((l) => JSON.parse(l));
    expect(http).toEqual({ ts: expect.any(Number), caller: 'httplog', msg: 'HTTP', v: 2, verb: 'GET', resp: 404 });
    expect(reload).toMatchObject({ caller: 'Authorization', msg: 'reloaded', v: 0 });
  });

  it('writes only what -v selects: verbosity 0 by default, request lines from 2, Nest internals from 5', () => {
    const { out, lines } = capture();
    const quiet = new KubeLogger(0, 'text', out);
    quiet.info(2, 'httplog', 'HTTP');
    quiet.debug('detail', 'X');
    quiet.log('Mapped {/livez, GET} route', 'RouterExplorer');
    quiet.log('started', 'Controller');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Controller] started');
    expect(quiet.enabled(2)).toBe(false);
    expect(new KubeLogger(2, 'text', out).enabled(2)).toBe(true);
  });

  it('prints durations as Go does', () => {
    expect(goDurationText(0.25)).toBe('250µs');
    expect(goDurationText(12.3456)).toBe('12.346ms');
    expect(goDurationText(1500)).toBe('1.5s');
  });

  it('gives a request one audit ID, the client\'s when usable, and sends it back', () => {
    const res = { headersSent: false, headers: {} as Record<string, string>, hasHeader(n: string) { return n in this.headers; }, setHeader(n: string, v: string) { this.headers[n] = v; } };
    const req = { headers: {} } as never;
    const id = assignAuditId(req, res as never);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['Audit-ID']).toBe(id);
    expect(assignAuditId({ headers: { 'audit-id': 'abc-1' } } as never, { ...res, headers: {} } as never)).toBe('abc-1');
    expect(assignAuditId({ headers: { 'audit-id': 'x'.repeat(200) } } as never, { ...res, headers: {} } as never)).not.toBe('x'.repeat(200));
  });
});
