// psd2-gateway tpp: the bank's own actions on enrolled TPPs. remove-certificate takes a certificate out
// of its TPP's set (a compromised key, a PUT made in error): from then on nothing issued over the TPP's
// certificates (tokens, refresh tokens, decoupled sessions) works over it, and what was issued over it
// keeps working over the TPP's other certificates. Running gateways see it within their certificate
// cache's minute. The database is the one the settings name, as for `psd2-gateway migrate`.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { type Command, parseOptions, UsageError } from './args.ts';

const USAGE = `usage: psd2-gateway tpp remove-certificate (--certificate FILE | --thumbprint HEX)
  remove-certificate   takes the certificate (PEM file, or its SHA-256 thumbprint in hex) out of its
                       TPP's certificates; prints the TPP it belonged to

settings (environment): DATABASE_URL (PostgreSQL; unset: embedded PGlite), DATA_DIR`;

const OPTIONS = { certificate: { type: 'string' }, thumbprint: { type: 'string' } } as const;

const THUMBPRINT = /^[0-9a-f]{64}$/;

/** The thumbprint of the certificate the options name, as the gateway computes it for a connection's. */
async function thumbprintOf(values: { certificate?: string; thumbprint?: string }): Promise<string> {
  if ((values.certificate === undefined) === (values.thumbprint === undefined))
    throw new UsageError('give either --certificate or --thumbprint');
  if (values.thumbprint !== undefined) {
    const thumbprint = values.thumbprint.toLowerCase();
    if (!THUMBPRINT.test(thumbprint)) throw new UsageError('--thumbprint must be 64 hex digits (SHA-256)');
    return thumbprint;
  }
  const { X509Certificate } = await import('node:crypto');
  const { loadQwacReader } = await import('../certificates/qwac.ts');
  let der: Buffer;
  try {
    der = Buffer.from(new X509Certificate(await readFile(values.certificate!)).raw);
  } catch {
    throw new UsageError('--certificate must name a PEM certificate file');
  }
  const read = (await loadQwacReader())(der);
  if (!read.ok) throw new UsageError(`--certificate is not a PSD2 certificate: ${read.reason}`);
  return read.qwac.thumbprint;
}

/**
 * Who the audit trail names for the bank's own command: no client address (no request came over the
 * network), a correlation id of this run, and in `detail` that the operator acted, as the machine's
 * user running the command knows them (null where the system has no name for its user).
 */
function operatorActor() {
  let user: string | null;
  try {
    user = userInfo().username;
  } catch {
    user = null;
  }
  return { address: null, correlationId: randomUUID(), detail: { by: 'operator', user } };
}

export const tppCommand: Command = {
  summary: "the bank's actions on enrolled TPPs (remove a certificate)",
  usage: USAGE,
  async run(args) {
    const { positionals, values } = parseOptions(args, OPTIONS, true);
    const [action, extra] = positionals;
    if (action !== 'remove-certificate')
      throw new UsageError(`unknown action ${action?.slice(0, 40) ?? '(none)'}`);
    if (extra !== undefined) throw new UsageError(`unexpected argument ${extra.slice(0, 40)}`);
    const thumbprint = await thumbprintOf(values);
    const { loadConfig } = await import('../config.ts');
    const { openConfiguredStore } = await import('../main.ts');
    const { removeCertificate } = await import('../store/tpps-repository.ts');
    const store = await openConfiguredStore(loadConfig());
    try {
      const tppId = await removeCertificate(store.db, thumbprint, new Date(), operatorActor());
      if (tppId === undefined) {
        process.stderr.write(`psd2-gateway tpp: no TPP holds the certificate ${thumbprint}\n`);
        return 1;
      }
      process.stdout.write(`removed the certificate ${thumbprint} of ${tppId}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
