import { gzipSync } from 'node:zlib';
import { negotiateResponse } from '../src/runtime/serializer/negotiation';
import { renderResponse } from '../src/runtime/serializer/response';
import { protobufCodec } from '../src/runtime/serializer/protobuf/protobuf-codec';
import { roleBindingType } from '../src/rbac/kinds/kinds';
import type { KubeList } from '../src/apimachinery/types';

/**
 * Encode/decode cost of one 1,000-item RoleBinding list in each response format, measured
 * in process on the same code the server renders with (`npm run bench -- codecs`).
 */
const ITEMS = 1000;
const RUNS = 30;

function roleBindingList(): KubeList {
  const created = '2024-06-01T12:00:00Z';
  return {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'RoleBindingList',
    metadata: { resourceVersion: '123456' },
    items: Array.from({ length: ITEMS }, (_, i) => ({
      metadata: {
        name: `binding-${String(i).padStart(5, '0')}`,
        namespace: 'bench',
        uid: `5e0c6a36-1c9a-4a53-9d7e-${String(i).padStart(12, '0')}`,
        resourceVersion: String(1000 + i),
        creationTimestamp: created,
        labels: { team: `t${i % 10}`, app: 'bench' },
        managedFields: [
          {
            manager: 'kubectl-create',
            operation: 'Update' as const,
            apiVersion: 'rbac.authorization.platform.io/v1',
            time: created,
            fieldsType: 'FieldsV1' as const,
            fieldsV1: { 'f:roleRef': {}, 'f:subjects': {} },
          },
        ],
      },
      roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: `user-${i}` },
        { kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name: 'developers' },
        { kind: 'ServiceAccount', name: `sa-${i}`, namespace: 'bench' },
      ],
    })),
  };
}

/** Median milliseconds of `RUNS` timed calls, after a few warm-up calls. */
function median(fn: () => unknown): number {
  for (let i = 0; i < 5; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export function runCodecBench(): void {
  const list = roleBindingList();
  const target = { type: roleBindingType, query: {}, now: new Date('2024-06-02T00:00:00Z') };
  const codec = protobufCodec();
  const formats: Array<{ label: string; accept: string; decode: (body: Buffer) => unknown }> = [
    { label: 'JSON', accept: 'application/json', decode: (b) => JSON.parse(b.toString()) },
    { label: 'protobuf', accept: 'application/vnd.platform.protobuf', decode: (b) => codec.decode('platform.io.api.rbac.v1.RoleBindingList', b) },
    { label: 'Table (JSON)', accept: 'application/json;as=Table;g=meta.platform.io;v=v1', decode: (b) => JSON.parse(b.toString()) },
  ];
  console.log(`codecs: ${ITEMS}-item RoleBinding list, median of ${RUNS} runs`);
  for (const f of formats) {
    const format = negotiateResponse(f.accept, { protobuf: true, table: true });
    // The bytes on the wire: text bodies are counted with their UTF-8 encoding.
    const encode = () => {
      const rendered = renderResponse(format, list, target, false).body;
      return typeof rendered === 'string' ? Buffer.from(rendered) : rendered;
    };
    const body = encode();
    const encodeMs = median(encode);
    const decodeMs = median(() => f.decode(body));
    const gzipMs = median(() => gzipSync(body, { level: 1 }));
    const gzipped = gzipSync(body, { level: 1 }).length;
    console.log(
      `codecs: ${f.label.padEnd(12)} ${String(body.length).padStart(8)} bytes (gzip ${String(gzipped).padStart(7)})  encode ${encodeMs.toFixed(2).padStart(6)} ms  decode ${decodeMs.toFixed(2).padStart(6)} ms  gzip ${gzipMs.toFixed(2).padStart(6)} ms`,
    );
  }
}
