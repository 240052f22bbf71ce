import { Controller, Get, Param, Req } from '@nestjs/common';
import { ApiRequest } from '../request/request-scope';
import { DiscoveryService } from './discovery.service';

@Controller()
export class DiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Get('api')
  coreVersions(@Req() req: ApiRequest) {
    return this.discovery.coreVersions(req.socket.localAddress ? `${req.socket.localAddress}:${req.socket.localPort}` : '');
  }

  @Get('api/v1')
  coreResources() {
    return this.discovery.resourceList('', 'v1');
  }

  @Get('apis')
  groups() {
    return this.discovery.groupList();
  }

  @Get('apis/:group')
  group(@Param('group') group: string) {
    return this.discovery.group(group);
  }

  @Get('apis/:group/:version')
  groupResources(@Param('group') group: string, @Param('version') version: string) {
    return this.discovery.resourceList(group, version);
  }
}
