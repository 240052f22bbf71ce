import { Module } from '@nestjs/common';
import { RequestAuditor } from './request-auditor';

/** The audit trail: the auditor whose stages the request pipeline runs (settings come from the server). */
@Module({ providers: [RequestAuditor], exports: [RequestAuditor] })
export class AuditModule {}
