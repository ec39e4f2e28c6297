// The settings of a live gateway on the certificates `psd2-gateway cert` wrote to `dir` (ca.pem,
// server.pem, server.key), its embedded database on disk there, the e-ID simulator, no rates, and a
// notification signing key written there.
import { join } from 'node:path';
import { writeSigningKey } from './signing-key.ts';

export function liveSettings(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MODE: 'live',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SCHEDULER_INTERVAL_MS: '0',
    TLS_CERT: join(dir, 'server.pem'),
    TLS_KEY: join(dir, 'server.key'),
    TLS_CLIENT_CA: join(dir, 'ca.pem'),
    DATA_DIR: join(dir, 'db'),
    EID_PROVIDER: 'simulator',
    FX_RATES: 'none',
    AUDIT_KEY: 'test-audit-key-0123456789abcdef0123456789',
    NOTIFICATION_SIGNING_KEY: writeSigningKey(dir),
    ...extra,
  };
}
