// The files and systems the settings name, read and made at start. The bank's own systems: the national e-ID (EID_PROVIDER=bankid), the bank's
// OpenID Connect login for PSUs (PSU_OIDC_*), its core banking system (CORE_BANKING_URL) and an
// exchange-rate source (FX_RATES). Each one not set is the built-in one (src/adapters/built-in-systems.ts),
// which buildApp fills in. Everything a system needs is read and checked here, at start: a certificate
// file that cannot be read, a provider that cannot be discovered or a rate file that is not one stops
// the start with a ConfigError naming the setting, not the first PSU's request. Each system connected
// comes with a probe (health, readiness, the start's log: services/shared/system-health.ts).
import { readFile } from 'node:fs/promises';
import { bankIdProvider } from './adapters/bankid/bankid-provider.ts';
import type { BankSystems } from './adapters/built-in-systems.ts';
import { noRates } from './adapters/fx-rates/no-rates.ts';
import { httpCoreBanking } from './adapters/http-core-banking/http-core-banking.ts';
import { type ClientTlsFiles, type Config, ConfigError, type TlsFiles } from './config.ts';
import type { SystemProbe } from './domain/bank-systems.ts';
import type { CustomerDirectory } from './ports/psu-directory.ts';
import type { PsuIdentityProvider } from './ports/psu-identity-provider.ts';

export interface ConnectedSystems {
  /** The systems the settings name; the rest stay built in. */
  readonly systems: Partial<BankSystems> & {
    readonly psuIdentityProvider?: PsuIdentityProvider;
    /** Who the bank's customers are and what they hold: its core banking system's answer. */
    readonly customers?: CustomerDirectory;
  };
  /** What is connected, for the start's log line: system -> where. */
  readonly connected: Readonly<Record<string, string>>;
  /**
   * How each system connected is asked whether it answers (health, readiness, the start's log). Core
   * banking is required (no payment or account read works without it); the e-ID, the login and the rates
   * are not: a gateway without them still serves most calls.
   */
  readonly probes: readonly SystemProbe[];
  /** Stops refreshing and closes kept-alive connections. */
  close(): void;
}

export interface ConnectOptions {
  readonly clock?: () => Date;
  /** Told when a later refresh of the rates fails (the last good rates stay in use). */
  readonly onRatesRefreshError?: (error: Error) => void;
}

export async function connectBankSystems(
  config: Config,
  options: ConnectOptions = {},
): Promise<ConnectedSystems> {
  const closers: (() => void)[] = [];
  const connected: Record<string, string> = {};
  const probes: SystemProbe[] = [];
  const systems: {
    -readonly [K in keyof ConnectedSystems['systems']]: ConnectedSystems['systems'][K];
  } = {};
  try {
    const eid = config.eidProvider;
    if (eid.kind === 'bankid') {
      const tls = await readClientTls('BANKID', eid.tls);
      const bankId = bankIdProvider({
        url: eid.url,
        cert: tls.cert!,
        key: tls.key!,
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(options.clock === undefined ? {} : { clock: options.clock }),
      });
      systems.eid = bankId;
      connected.eid = eid.url;
      probes.push({ system: 'eid', where: eid.url, required: false, probe: () => bankId.probe() });
    }
    if (config.coreBanking !== undefined) {
      const tls = await readClientTls('CORE_BANKING', config.coreBanking.tls);
      const coreBanking = httpCoreBanking({
        url: config.coreBanking.url,
        timeoutMs: config.coreBanking.timeoutMs,
        ...tls,
      });
      closers.push(() => coreBanking.close());
      systems.coreBanking = coreBanking;
      systems.customers = coreBanking.customers;
      connected.coreBanking = config.coreBanking.url;
      probes.push({
        system: 'coreBanking',
        where: config.coreBanking.url,
        required: true,
        probe: () => coreBanking.probe(),
      });
    }
    const fx = config.fxRates;
    if (fx.kind === 'none') {
      systems.rates = noRates;
      connected.rates = 'none (cross-currency refused)';
    } else if (fx.kind === 'file' || fx.kind === 'url') {
      const source =
        fx.kind === 'file' ? { kind: 'file' as const, path: fx.path } : { kind: 'url' as const, url: fx.url };
      // The source is read on its schedule, not by the probe: its state is whether the last read worked.
      let refreshFailure: Error | undefined;
      // The rates' reader (an XML parser) and the OpenID client below are loaded only when set.
      const { loadedRates } = await import('./adapters/fx-rates/loaded-rates.ts');
      const rates = await loadedRates({
        source,
        refreshMs: fx.refreshMs,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        onRefresh: () => {
          refreshFailure = undefined;
        },
        onRefreshError: (error) => {
          refreshFailure = error;
          options.onRatesRefreshError?.(error);
        },
      }).catch(asConfigError('FX_RATES'));
      closers.push(() => rates.close());
      systems.rates = rates;
      connected.rates = fx.kind === 'file' ? fx.path : fx.url;
      probes.push({
        system: 'rates',
        where: connected.rates,
        required: false,
        probe: async () => {
          if (refreshFailure !== undefined) throw refreshFailure;
        },
      });
    }
    if (config.psuOidc !== undefined) {
      const { openIdPsuLogin } = await import('./adapters/openid-psu-login.ts');
      const login = await openIdPsuLogin(config.psuOidc).catch(asConfigError('PSU_OIDC_ISSUER'));
      systems.psuIdentityProvider = login;
      connected.psuLogin = config.psuOidc.issuer;
      probes.push({ system: 'psuLogin', where: config.psuOidc.issuer, required: false, probe: login.probe });
    }
  } catch (error) {
    for (const close of closers) close();
    throw error;
  }
  return {
    systems,
    connected,
    probes,
    close: () => {
      for (const close of closers) close();
    },
  };
}

/** A file a setting names, read at start; one that cannot be read stops the start naming the setting. */
async function readSettingFile(key: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    throw new ConfigError(key, `cannot read the file ${path}`);
  }
}

/** The server's certificate, key, the trusted issuers of TPP certificates and their CRLs (TLS_*). */
export async function readTlsFiles(
  files: TlsFiles,
): Promise<{ key: string; cert: string; ca?: string; crl?: string }> {
  return {
    cert: await readSettingFile('TLS_CERT', files.cert),
    key: await readSettingFile('TLS_KEY', files.key),
    ...(files.clientCa === undefined ? {} : { ca: await readSettingFile('TLS_CLIENT_CA', files.clientCa) }),
    ...(files.crl === undefined ? {} : { crl: await readSettingFile('TLS_CRL', files.crl) }),
  };
}

/** The PEM contents of a client's certificate, key and trusted issuers (<PREFIX>_CERT, _KEY, _CA). */
async function readClientTls(
  prefix: string,
  files: ClientTlsFiles,
): Promise<{ cert?: string; key?: string; ca?: string }> {
  const read = async (suffix: 'CERT' | 'KEY' | 'CA', path: string | undefined) =>
    path === undefined ? {} : { [suffix.toLowerCase()]: await readSettingFile(`${prefix}_${suffix}`, path) };
  return {
    ...(await read('CERT', files.cert)),
    ...(await read('KEY', files.key)),
    ...(await read('CA', files.ca)),
  };
}

/** A system's refusal at start as a ConfigError naming the setting (once, where the message names it too). */
function asConfigError(key: string): (error: unknown) => never {
  return (error) => {
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError(key, message.startsWith(`${key} `) ? message.slice(key.length + 1) : message);
  };
}
