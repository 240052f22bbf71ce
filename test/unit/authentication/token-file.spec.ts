import { parseTokenFile, TokenFileError } from '../../../src/authentication/token-file/token-file';

describe('static token file', () => {
  it('reads token, user, uid and quoted groups like kube', () => {
    const tokens = parseTokenFile('t1,alice,u1,"a,b"\nt2,bob,u2\nt3,carol,u3,ops\n\n');
    expect(tokens.get('t1')).toEqual({ username: 'alice', uid: 'u1', groups: ['a', 'b'] });
    expect(tokens.get('t2')).toEqual({ username: 'bob', uid: 'u2', groups: [] });
    expect(tokens.get('t3')).toEqual({ username: 'carol', uid: 'u3', groups: ['ops'] });
  });

  it('keeps the last record of a repeated token and skips empty tokens', () => {
    const tokens = parseTokenFile('t,first,1\nt,second,2\n,nobody,3\n');
    expect(tokens.get('t')?.username).toBe('second');
    expect(tokens.size).toBe(1);
  });

  it('rejects records with fewer than 3 columns and broken quoting', () => {
    expect(() => parseTokenFile('t,alice\n', 'f.csv')).toThrow("token file 'f.csv' must have at least 3 columns (token, user name, user uid), found 2");
    expect(() => parseTokenFile('t,alice,u,"a,b\n')).toThrow(TokenFileError);
  });
});
