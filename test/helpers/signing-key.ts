// A notification signing key for a live gateway in a test (NOTIFICATION_SIGNING_KEY): a fresh EC P-256
// private key written as PKCS#8 PEM into the test's directory; answers its path.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeSigningKey(dir: string, name = 'notification-signing.pem'): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const path = join(dir, name);
  writeFileSync(path, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  return path;
}
