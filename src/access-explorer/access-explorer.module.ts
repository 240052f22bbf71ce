import { Module } from '@nestjs/common';
import { AccessExplorerController } from './access-explorer.controller';

/** The access explorer page at /access/. */
@Module({ controllers: [AccessExplorerController] })
export class AccessExplorerModule {}
