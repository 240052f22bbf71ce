import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { AuthenticationModule } from '../authentication/authentication.module';
import { Authenticator } from '../authentication/authenticator';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { OBJECT_STORE, ObjectStore } from '../storage/object-store';
import { BootstrapTokenStrategy } from './bootstrap-token.strategy';

/** --enable-bootstrap-token-auth: bootstrap tokens join the union of authentication methods. */
@Module({ imports: [AuthenticationModule] })
export class BootstrapTokenModule implements OnModuleInit {
  constructor(
    private readonly authenticator: Authenticator,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
  ) {}

  onModuleInit(): void {
    if (this.options.enableBootstrapTokenAuth) this.authenticator.register(new BootstrapTokenStrategy(this.store));
  }
}
