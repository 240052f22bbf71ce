import { Module } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { AuthenticationTrustPublisher } from './authentication-trust';

/** The extension-apiserver-authentication ConfigMap: how this server authenticates clients, for extension servers. */
@Module({ imports: [RegistryModule], providers: [AuthenticationTrustPublisher] })
export class AuthenticationTrustModule {}
