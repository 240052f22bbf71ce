import { Module } from '@nestjs/common';
import { OpenApiUiController } from './openapi-ui.controller';

/** The browsable API page at /openapi/ui. */
@Module({ controllers: [OpenApiUiController] })
export class OpenApiUiModule {}
