import { All, Controller, Module } from '@nestjs/common';
import { errors } from '../../apimachinery/errors';

/**
 * Every request no other route serves. It is an ordinary route, not a public one, so the
 * authorizer chain sees the request first, as kube authorizes before routing: a caller who
 * may not reach the path gets 403 and learns nothing about which paths exist, one who may
 * gets kube's 404.
 */
@Controller()
export class UnknownPathController {
  @All(['/', '*path'])
  notFound(): never {
    throw errors.pathNotFound();
  }
}

/**
 * Must be the application module's last import: express tries routes in the order Nest
 * registers them, which is the order modules are first imported.
 */
@Module({ controllers: [UnknownPathController] })
export class UnknownPathModule {}
