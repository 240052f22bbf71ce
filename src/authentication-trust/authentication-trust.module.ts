import { Module } from '@nestjs/common';
import { ApiModule } from '../api/api.module';
import { AuthenticationTrustPublisher } from './authentication-trust';

/** The extension-apiserver-authentication ConfigMap: how this server authenticates clients, for extension servers. */
@Module({ imports: [ApiModule], providers: [AuthenticationTrustPublisher] })
export class AuthenticationTrustModule {}
