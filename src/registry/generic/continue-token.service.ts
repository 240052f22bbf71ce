import { Injectable, OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ContinuePosition, ContinueTokens } from './continue-token';

const KEY_NAME = 'continue-token-hmac';

/**
 * Continue tokens signed with a key every replica shares: the first server to start stores
 * a random key in the database, the others read it, so any replica continues any list.
 */
@Injectable()
export class ContinueTokenService implements OnModuleInit {
  private tokens: ContinueTokens | null = null;

  constructor(private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    const candidate = randomBytes(32).toString('hex');
    await this.dataSource.query('INSERT INTO kv_secret (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [KEY_NAME, candidate]);
    const rows: Array<{ value: string }> = await this.dataSource.query('SELECT value FROM kv_secret WHERE name = $1', [KEY_NAME]);
    this.tokens = new ContinueTokens(Buffer.from(rows[0].value, 'hex'));
  }

  encode(pos: ContinuePosition): string {
    return this.ready().encode(pos);
  }

  decode(token: string): ContinuePosition {
    return this.ready().decode(token);
  }

  private ready(): ContinueTokens {
    if (!this.tokens) throw new Error('continue token key not loaded');
    return this.tokens;
  }
}
