// The settings that connect every one of the bank's systems to a gateway started as main starts it
// (EID_PROVIDER=bankid, PSU_OIDC_*, CORE_BANKING_URL, FX_RATES), against the stand-ins, with the files
// they name written to a directory: the e-ID client's certificate, key and trusted issuer, an ECB file.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BankIdRp } from '../stand-ins/bankid-rp.ts';
import type { CoreBankingStandIn } from '../stand-ins/core-banking.ts';
import type { StandInProvider } from '../stand-ins/oidc-provider.ts';

/** An ECB daily reference-rate file. */
const ECB_DAILY = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube><Cube time="2026-11-20"><Cube currency="USD" rate="1.0512"/><Cube currency="SEK" rate="11.4375"/></Cube></Cube>
</gesmes:Envelope>
`;

export async function bankSystemSettings(
  dir: string,
  systems: { rp: BankIdRp; bank: CoreBankingStandIn; provider: StandInProvider },
  /** An ECB file of the test's own, instead of the daily file written here. */
  fxRates?: string,
): Promise<Record<string, string>> {
  const { rp, bank, provider } = systems;
  const files: Record<string, string> = {
    'bankid.pem': rp.client.cert,
    'bankid.key': rp.client.key,
    'bankid-ca.pem': rp.serverCa,
    'eurofxref-daily.xml': ECB_DAILY,
  };
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return {
    EID_PROVIDER: 'bankid',
    BANKID_URL: rp.url,
    BANKID_CERT: join(dir, 'bankid.pem'),
    BANKID_KEY: join(dir, 'bankid.key'),
    BANKID_CA: join(dir, 'bankid-ca.pem'),
    PSU_OIDC_ISSUER: provider.issuer,
    PSU_OIDC_CLIENT_ID: provider.clientId,
    PSU_OIDC_CLIENT_SECRET: provider.clientSecret,
    PSU_OIDC_ID_CLAIM: 'personal_number',
    CORE_BANKING_URL: bank.url,
    FX_RATES: fxRates ?? join(dir, 'eurofxref-daily.xml'),
  };
}
