import { Controller, Get, Param } from '@nestjs/common';
import { OpenApiService } from './openapi.service';

@Controller('openapi/v3')
export class OpenApiController {
  constructor(private readonly openapi: OpenApiService) {}

  @Get()
  root() {
    return this.openapi.root();
  }

  @Get('api/:version')
  core(@Param('version') version: string) {
    return this.openapi.document('', version);
  }

  @Get('apis/:group/:version')
  group(@Param('group') group: string, @Param('version') version: string) {
    return this.openapi.document(group, version);
  }
}
