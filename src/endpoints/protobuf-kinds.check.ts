import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ResourceRegistry } from '../registry/resources/registry';
import { protobufCodec } from '../runtime/serializer/protobuf/protobuf-codec';

/**
 * Fails start-up when a registered kind names a protobuf message the .proto files do not
 * define, instead of failing its first protobuf request. Runs after every feature module
 * has registered its kinds.
 */
@Injectable()
export class ProtobufKindsCheck implements OnApplicationBootstrap {
  constructor(private readonly registry: ResourceRegistry) {}

  onApplicationBootstrap(): void {
    const codec = protobufCodec();
    const missing = this.registry
      .all()
      .flatMap(({ type }) => [type.protobuf?.message, type.protobuf?.listMessage])
      .filter((name): name is string => name !== undefined)
      .filter((name) => !codec.has(name));
    if (missing.length) throw new Error(`protobuf messages not found in proto/: ${missing.join(', ')}`);
  }
}
