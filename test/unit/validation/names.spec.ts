import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  regexError,
  validateNamespaceName,
  validatePathSegmentName,
  validateServiceAccountName,
} from '../../../src/apimachinery/validation/names';

const DNS_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QNAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('regexError', () => {
  it('lists examples the way Go builds the text (double space before "or")', () => {
    expect(regexError('bad', 'x+', 'a', 'b')).toBe("bad (e.g. 'a',  or 'b', regex used for validation is 'x+')");
    expect(regexError('bad', 'x+')).toBe("bad (regex used for validation is 'x+')");
  });
});

describe('validatePathSegmentName', () => {
  it.each(['admin', 'system:controller:foo', 'a.b', 'UPPER_case', '...', 'a b', '.x'])('accepts %j', (name) => {
    expect(validatePathSegmentName(name, false)).toEqual([]);
  });

  it.each([
    ['.', ["may not be '.'"]],
    ['..', ["may not be '..'"]],
    ['a/b', ["may not contain '/'"]],
    ['a%b', ["may not contain '%'"]],
    ['a/%', ["may not contain '/'", "may not contain '%'"]],
  ])('rejects %j', (name, reasons) => {
    expect(validatePathSegmentName(name, false)).toEqual(reasons);
  });

  it('checks only the separators for a prefix', () => {
    expect(validatePathSegmentName('.', true)).toEqual([]);
    expect(validatePathSegmentName('..', true)).toEqual([]);
    expect(validatePathSegmentName('a/', true)).toEqual(["may not contain '/'"]);
    expect(validatePathSegmentName('%', true)).toEqual(["may not contain '%'"]);
  });
});

describe('isDNS1123Label', () => {
  it.each(['a', 'abc', 'a-b', '0', '1-2', 'a'.repeat(63)])('accepts %j', (v) => expect(isDNS1123Label(v)).toEqual([]));

  it.each(['', 'A', 'a_b', '-a', 'a-', 'a b'])('rejects %j with the regex message', (v) => {
    expect(isDNS1123Label(v)).toEqual([DNS_LABEL_MSG]);
  });

  it('says "must not contain dots" for a valid subdomain', () => {
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
  });

  it('limits the length to 63', () => {
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('isDNS1123Subdomain', () => {
  it.each(['a', 'a.b', 'example.com', 'a-1.b-2'])('accepts %j', (v) => expect(isDNS1123Subdomain(v)).toEqual([]));

  it.each(['', 'A.b', 'a..b', '.a', 'a.', 'a_b'])('rejects %j', (v) => expect(isDNS1123Subdomain(v)).toEqual([DNS_SUBDOMAIN_MSG]));

  it('limits the length to 253', () => {
    const long = `${'a'.repeat(63)}.`.repeat(4).slice(0, 254);
    expect(isDNS1123Subdomain(long)).toContain('must be no more than 253 characters');
  });
});

describe('name validators with generateName prefixes', () => {
  it('nameIsDNSLabel masks a trailing dash of a prefix', () => {
    expect(nameIsDNSLabel('gen-', true)).toEqual([]);
    expect(nameIsDNSLabel('gen-', false)).toEqual([DNS_LABEL_MSG]);
    expect(nameIsDNSLabel('-', true)).toEqual([DNS_LABEL_MSG]);
  });

  it('nameIsDNSSubdomain masks the same way', () => {
    expect(nameIsDNSSubdomain('my.sa-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('Bad', false)).toEqual([DNS_SUBDOMAIN_MSG]);
  });

  it('namespaces are DNS labels and service accounts DNS subdomains', () => {
    expect(validateNamespaceName('kube-system', false)).toEqual([]);
    expect(validateNamespaceName('Bad_Name', false)).toEqual([DNS_LABEL_MSG]);
    expect(validateNamespaceName('a.b', false)).toEqual(['must not contain dots']);
    expect(validateServiceAccountName('builder.x', false)).toEqual([]);
    expect(validateServiceAccountName('Not_Valid', false)).toEqual([DNS_SUBDOMAIN_MSG]);
  });
});

describe('isQualifiedName', () => {
  it.each(['a', 'A', 'app', 'my.name', 'My_Name-1', 'example.com/MyName', 'a/b', 'x'.repeat(63)])('accepts %j', (v) => {
    expect(isQualifiedName(v)).toEqual([]);
  });

  it('rejects a bad name part', () => {
    expect(isQualifiedName('bad key!')).toEqual([`name part ${QNAME_MSG}`]);
    expect(isQualifiedName('-a')).toEqual([`name part ${QNAME_MSG}`]);
  });

  it('rejects an empty name part', () => {
    expect(isQualifiedName('')).toEqual(['name part must be non-empty', `name part ${QNAME_MSG}`]);
    expect(isQualifiedName('example.com/')).toEqual(['name part must be non-empty', `name part ${QNAME_MSG}`]);
  });

  it('limits the name part to 63 characters', () => {
    expect(isQualifiedName('x'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
  });

  it('checks the prefix as a DNS subdomain', () => {
    expect(isQualifiedName('/a')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('Example.com/a')).toEqual([`prefix part ${DNS_SUBDOMAIN_MSG}`]);
  });

  it('rejects more than one slash', () => {
    expect(isQualifiedName('a/b/c')).toEqual([
      `a qualified name ${QNAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]);
  });
});

describe('isValidLabelValue', () => {
  it.each(['', 'a', 'MyValue', 'my_value', '12345', 'a.b-c_d', 'v'.repeat(63)])('accepts %j', (v) => {
    expect(isValidLabelValue(v)).toEqual([]);
  });

  it.each(['-a', 'a-', 'a b', 'ä'])('rejects %j', (v) => expect(isValidLabelValue(v)).toEqual([LABEL_VALUE_MSG]));

  it('limits values to 63 bytes', () => {
    expect(isValidLabelValue('v'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});
