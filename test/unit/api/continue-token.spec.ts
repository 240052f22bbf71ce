import { ContinueTokens } from '../../../src/registry/generic/continue-token';

describe('continue tokens', () => {
  const tokens = new ContinueTokens(Buffer.from('0123456789abcdef0123456789abcdef'));

  it('round-trips the snapshot revision and the last key', () => {
    const pos = { revision: '1234', namespace: 'team-a', name: 'reader' };
    expect(tokens.decode(tokens.encode(pos))).toEqual(pos);
  });

  it('is opaque to clients: no plain key in the token', () => {
    expect(tokens.encode({ revision: '1', namespace: 'secret-ns', name: 'x' })).not.toContain('secret-ns');
  });

  it('rejects tampered, foreign and malformed tokens with 400', () => {
    const good = tokens.encode({ revision: '10', namespace: '', name: 'a' });
    const [payload, mac] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ v: 'meta.platform.io/v1', rv: '1', ns: '', n: 'a' })).toString('base64url');
    const other = new ContinueTokens(Buffer.from('another key of thirty-two bytes!'));
    for (const bad of [`${forged}.${mac}`, `${payload}.x${mac}`, 'garbage', '', '.', other.encode({ revision: '10', namespace: '', name: 'a' })]) {
      expect(() => tokens.decode(bad)).toThrow(expect.objectContaining({ code: 400, reason: 'BadRequest' }));
    }
  });
});
