// The SCA methods offered for a payment: redirect everywhere, decoupled (mobile e-ID) in Sweden only.

export interface ScaLink {
  readonly href: string;
  readonly name: string;
  readonly type: string;
}

export interface ScaMethod {
  readonly scaMethodType: 'REDIRECT' | 'DECOUPLED';
  readonly _links: { readonly authorization: readonly ScaLink[] };
}

export function scaMethods(baseUrl: string, country: string): ScaMethod[] {
  const methods: ScaMethod[] = [
    {
      scaMethodType: 'REDIRECT',
      _links: {
        authorization: [
          { href: `${baseUrl}/oauth2/authorize/1.0`, name: 'authorize', type: 'application/json' },
          { href: `${baseUrl}/oauth2/token/1.0`, name: 'token', type: 'application/x-www-form-urlencoded' },
        ],
      },
    },
  ];
  if (country === 'SE') {
    methods.push({
      scaMethodType: 'DECOUPLED',
      _links: {
        authorization: [
          {
            href: `${baseUrl}/decoupled/eid/initAuthorization/2.0`,
            name: 'initAuthorization',
            type: 'application/json',
          },
        ],
      },
    });
  }
  return methods;
}
