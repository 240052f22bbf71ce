import { readConfigFile } from '../../config/config-file';
import { UserInfo } from '../../apimachinery/user-info';

export class TokenFileError extends Error {}

/** Splits one CSV record: commas separate fields, double quotes group (and "" escapes). */
function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  if (quoted) throw new TokenFileError('unterminated quoted field');
  fields.push(field);
  return fields.map((f) => f.replace(/^\s+/, ''));
}

/**
 * The static token file of --token-auth-file, as kube reads it: CSV records
 * `token,user,uid[,"group1,group2"]`; fewer than 3 columns is an error, an empty token
 * is skipped, a repeated token keeps the last record.
 */
export function parseTokenFile(content: string, path = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  content.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    let record: string[];
    try {
      record = parseCsvLine(line);
    } catch (err) {
      throw new TokenFileError(`token file '${path}' line ${index + 1}: ${(err as Error).message}`);
    }
    if (record.length < 3) {
      throw new TokenFileError(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    const [token, username, uid, groupColumn] = record;
    if (!token) return;
    const groups = groupColumn ? groupColumn.split(',').map((g) => g.trim()).filter(Boolean) : [];
    tokens.set(token, { username, uid, groups });
  });
  return tokens;
}

/** Reads and parses `--token-auth-file`: the tokens and the identity each one stands for. */
export function loadTokenFile(path: string): Map<string, UserInfo> {
  return parseTokenFile(readConfigFile(path), path);
}
