// PSD2 roles of a payment service provider (ETSI TS 119 495) and the scopes they give here.

export const PSP_ROLES = {
  '0.4.0.19495.1.1': 'PSP_AS',
  '0.4.0.19495.1.2': 'PSP_PI',
  '0.4.0.19495.1.3': 'PSP_AI',
  '0.4.0.19495.1.4': 'PSP_IC',
} as const;

export type PspRole = (typeof PSP_ROLES)[keyof typeof PSP_ROLES];
export type TppScope = 'PIS' | 'AIS' | 'CBPII';

const ROLE_SCOPES: Readonly<Record<PspRole, TppScope | undefined>> = {
  PSP_AS: undefined,
  PSP_PI: 'PIS',
  PSP_AI: 'AIS',
  PSP_IC: 'CBPII',
};

export function roleOfOid(oid: string): PspRole | undefined {
  return (PSP_ROLES as Readonly<Record<string, PspRole>>)[oid];
}

export function oidOfRole(role: PspRole): string {
  return Object.entries(PSP_ROLES).find(([, name]) => name === role)![0];
}

/** The scopes a certificate's roles give; PIS also allows confirmation of funds (spec Authentication 1). */
export function scopesOfRoles(roles: readonly PspRole[]): TppScope[] {
  const scopes = new Set<TppScope>();
  for (const role of roles) {
    const scope = ROLE_SCOPES[role];
    if (scope !== undefined) scopes.add(scope);
    if (scope === 'PIS') scopes.add('CBPII');
  }
  return [...scopes].sort();
}

/** The roles that give a scope: PSP_PI for PIS, PSP_AI for AIS, PSP_IC or PSP_PI for CBPII. */
export function rolesGiving(scope: TppScope): PspRole[] {
  return Object.values(PSP_ROLES).filter((role) => scopesOfRoles([role]).includes(scope));
}

/**
 * The TPP id we hand out, from the certificate's organizationIdentifier: PSDSE-FINA-44059 gives
 * SE-FINA-44059 (API-NOTES "Certificates"); undefined when it is not a PSD2 identifier.
 */
export function tppIdOf(organizationIdentifier: string): string | undefined {
  const match = /^PSD([A-Z]{2})-([A-Z0-9]{2,8})-([A-Za-z0-9./-]{1,35})$/.exec(organizationIdentifier);
  return match === null ? undefined : `${match[1]}-${match[2]}-${match[3]}`;
}
