import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import * as protobuf from 'protobufjs';

/** The top-level folder that holds the .proto files, one sub-folder per package path. */
const PROTO_DIR = 'proto';
/** Present in the proto folder: tells it apart from any other folder of that name. */
const MARKER = join('platform.io', 'codec', 'options.proto');

/**
 * The proto folder, found by walking up from this module: the same lookup works from the
 * sources (tests) and from the compiled output in dist/, which sits inside the project.
 */
export function findProtoDir(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, PROTO_DIR);
    if (existsSync(join(candidate, MARKER))) return candidate;
    if (dirname(dir) === dir) throw new Error(`no ${PROTO_DIR}/${MARKER} found above ${from}`);
  }
}

function protoFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return protoFiles(path);
      return entry.endsWith('.proto') ? [path] : [];
    });
}

/**
 * Every message of every .proto file under the proto folder, in one resolved root. Field
 * names keep their case (`apiVersion`, `Raw`): they are the JSON names.
 */
export function loadProtoRoot(dir: string = findProtoDir()): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    if (isAbsolute(target)) return target;
    // descriptor.proto (for the codec options) ships with protobufjs.
    if (target.startsWith('google/protobuf/')) return require.resolve(`protobufjs/${target}`);
    return join(dir, target);
  };
  root.loadSync(protoFiles(dir), { keepCase: true });
  root.resolveAll();
  return root;
}

let shared: protobuf.Root | undefined;

/** The root the server uses, loaded once on first use. */
export function protoRoot(): protobuf.Root {
  shared ??= loadProtoRoot();
  return shared;
}
