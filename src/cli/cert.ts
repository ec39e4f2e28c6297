// psd2-gateway cert: test certificates for live mode (a CA, server certificates, QWACs with chosen
// PSD2 roles, organization identifier and validity, CRLs), written as PEM files.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  caSubject,
  createCa,
  createCrl,
  issueQwac,
  issueServerCertificate,
  loadIssued,
} from '../certificates/issue.ts';
import { PSP_ROLES, type PspRole } from '../domain/psp-roles.ts';
import { type Command, parseOptions, required, UsageError } from './args.ts';

const CERT_USAGE = `usage: psd2-gateway cert <what> [options]
  ca      --out DIR [--name "Test CA 2"]             a test CA: DIR/ca.pem, DIR/ca.key; its common name
                                                      (default "psd2-gateway test CA"): a second CA needs
                                                      another, since TLS finds a CA by its name
  server  --ca DIR --out DIR [--host localhost,127.0.0.1]
                                                      a server certificate: DIR/server.pem, DIR/server.key
  qwac    --ca DIR --out DIR --org PSDSE-FINA-44059 --name "Budget Buddy AB" --roles PSP_PI,PSP_AI
          [--days 365] [--expired] [--file qwac]      a QWAC: DIR/<file>.pem, DIR/<file>.key (serial printed)
  crl     --ca DIR --revoke SERIAL[,SERIAL] --out FILE
                                                      a CRL revoking those serial numbers`;

const OPTIONS = {
  out: { type: 'string' },
  ca: { type: 'string' },
  host: { type: 'string' },
  org: { type: 'string' },
  name: { type: 'string' },
  roles: { type: 'string' },
  days: { type: 'string' },
  expired: { type: 'boolean' },
  file: { type: 'string' },
  revoke: { type: 'string' },
} as const;

async function loadCa(dir: string) {
  return loadIssued(await readFile(join(dir, 'ca.pem'), 'utf8'), await readFile(join(dir, 'ca.key'), 'utf8'));
}

/** Writes the certificate and its key (readable by the owner only) and says where. */
async function write(
  dir: string,
  name: string,
  issued: { certificatePem: string; keyPem: string },
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const certificate = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  await writeFile(certificate, issued.certificatePem);
  await writeFile(key, issued.keyPem, { mode: 0o600 });
  process.stdout.write(`wrote ${certificate} and ${key}\n`);
}

function roles(text: string): PspRole[] {
  const known = Object.values(PSP_ROLES) as string[];
  return text.split(',').map((role) => {
    const trimmed = role.trim();
    if (!known.includes(trimmed)) throw new UsageError(`unknown role ${trimmed}: use ${known.join(', ')}`);
    return trimmed as PspRole;
  });
}

/** A CA's common name: 1 to 64 characters (X.520's upper bound), no control characters. */
function caName(name: string | undefined) {
  if (name === undefined) return undefined;
  if (!/^[^\p{Cc}]{1,64}$/u.test(name)) throw new UsageError('--name must be 1 to 64 printable characters');
  return caSubject(name);
}

async function make(args: readonly string[]): Promise<number> {
  const { positionals, values } = parseOptions(args, OPTIONS, true);
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${positionals[1]}`);
  switch (positionals[0]) {
    case 'ca':
      await write(required(values.out, 'out'), 'ca', await createCa(caName(values.name)));
      break;
    case 'server': {
      const hosts = (values.host ?? 'localhost,127.0.0.1').split(',').map((host) => host.trim());
      await write(
        required(values.out, 'out'),
        'server',
        await issueServerCertificate(await loadCa(required(values.ca, 'ca')), hosts),
      );
      break;
    }
    case 'qwac': {
      const days = Number(values.days ?? '365');
      if (!Number.isInteger(days) || days < 1) throw new UsageError('--days must be a whole number of days');
      const now = Date.now();
      const qwac = await issueQwac(await loadCa(required(values.ca, 'ca')), {
        organizationIdentifier: required(values.org, 'org'),
        organizationName: required(values.name, 'name'),
        roles: roles(required(values.roles, 'roles')),
        ...(values.expired === true
          ? { notBefore: new Date(now - (days + 1) * 86_400_000), notAfter: new Date(now - 86_400_000) }
          : { notAfter: new Date(now + days * 86_400_000) }),
      });
      await write(required(values.out, 'out'), values.file ?? 'qwac', qwac);
      process.stdout.write(`serial ${qwac.serialNumber}\n`);
      break;
    }
    case 'crl': {
      const crl = await createCrl(
        await loadCa(required(values.ca, 'ca')),
        required(values.revoke, 'revoke').split(','),
      );
      const out = required(values.out, 'out');
      await writeFile(out, crl);
      process.stdout.write(`wrote ${out}\n`);
      break;
    }
    default:
      throw new UsageError(
        `${positionals[0] === undefined ? 'say what to make' : `cannot make ${positionals[0].slice(0, 40)}`}: ca, server, qwac or crl`,
      );
  }
  return 0;
}

export const certCommand: Command = {
  summary: 'make test certificates for live mode',
  usage: CERT_USAGE,
  run: make,
};
