import { Module } from '@nestjs/common';
import { AuthenticationModule } from '../authentication.module';
import { JwtAuthenticationSetup } from './jwt-authentication.setup';

/** OpenID Connect by flags or the structured authentication configuration: JWT authenticators in the union. */
@Module({ imports: [AuthenticationModule], providers: [JwtAuthenticationSetup] })
export class JwtAuthenticationModule {}
