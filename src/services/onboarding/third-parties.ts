// Onboarding of TPPs (spec rows 2 and 3): enrollment from the certificate presented in TLS, and
// further certificates. In the sandbox the same endpoints work without a certificate.
import { randomInt } from 'node:crypto';
import { loadQwacReader, type PeerIdentity, type Qwac } from '../../certificates/qwac.ts';
import { ApiError, apiError } from '../../domain/errors.ts';
import { addCertificate, enrollTpp, findTppByOrganization } from '../../store/tpps-repository.ts';
import { requireQwac } from '../access/live-access.ts';
import type { ServiceContext } from '../shared/context.ts';
import type { Answer } from '../shared/idempotency.ts';

export interface ThirdPartyResponse {
  readonly clientId: string;
}

function requireRole(qwac: Qwac): void {
  if (qwac.scopes.length === 0) {
    throw apiError('ROLE_INVALID', 'The certificate carries none of the roles PSP_PI, PSP_AI, PSP_IC');
  }
}

async function register(context: ServiceContext, qwac: Qwac): Promise<{ tppId: string; created: boolean }> {
  const now = context.clock();
  return context.db.transaction(async (trx) => {
    const { tpp, created } = await enrollTpp(trx, {
      tppId: qwac.tppId,
      organizationIdentifier: qwac.organizationIdentifier,
      name: qwac.organizationName,
      createdAt: now,
    });
    const added = await addCertificate(trx, {
      thumbprint: qwac.thumbprint,
      tppId: tpp.tppId,
      scopes: qwac.scopes.join(' '),
      notAfter: qwac.notAfter,
      addedAt: now,
    });
    // The bank removed it from the TPP's set: enrolling or adding it again does not take it back.
    if (!added) throw apiError('CERTIFICATE_INVALID', 'The certificate has been removed by the bank');
    return { tppId: tpp.tppId, created };
  });
}

/** POST /psd2/v1/third-parties: 201 for a new TPP, 200 with the existing id when enrolled already. */
export async function enrollThirdParty(
  context: ServiceContext,
  peer: PeerIdentity,
): Promise<Answer<ThirdPartyResponse>> {
  if (context.policy.onboardingWithoutCertificate && peer.kind === 'none') {
    // Rehearsing onboarding in the sandbox: a sandbox TPP id of the documented shape.
    const number = String(randomInt(10_000_000, 100_000_000));
    const { tppId } = await context.db.transaction(async (trx) =>
      enrollTpp(trx, {
        tppId: `XX-SANDBOX-${number}`,
        organizationIdentifier: `PSDXX-SANDBOX-${number}`,
        name: 'Sandbox TPP',
        createdAt: context.clock(),
      }).then((enrolled) => enrolled.tpp),
    );
    return { statusCode: 201, body: { clientId: tppId } };
  }
  const qwac = requireQwac(peer);
  requireRole(qwac);
  const { tppId, created } = await register(context, qwac);
  return { statusCode: created ? 201 : 200, body: { clientId: tppId } };
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** PUT /psd2/v1/third-parties: adds the certificate used in TLS, given in the body too. */
export async function addThirdPartyCertificate(
  context: ServiceContext,
  peer: PeerIdentity,
  clientCertificate: string,
): Promise<Answer<ThirdPartyResponse>> {
  if (!BASE64.test(clientCertificate)) {
    throw apiError(
      'FORMAT_ERROR',
      'clientCertificate must be the base64 DER certificate, with no line breaks or white space',
      'clientCertificate',
    );
  }
  const read = (await loadQwacReader())(Buffer.from(clientCertificate, 'base64'));
  if (!read.ok)
    throw apiError('CERTIFICATE_INVALID', `clientCertificate ${read.reason}`, 'clientCertificate');
  const presented =
    context.policy.onboardingWithoutCertificate && peer.kind === 'none' ? read.qwac : requireQwac(peer);
  if (presented.base64 !== read.qwac.base64) {
    throw apiError(
      'CERTIFICATE_INVALID',
      'clientCertificate must be the certificate used in TLS',
      'clientCertificate',
    );
  }
  requireRole(presented);
  const enrolled = await findTppByOrganization(context.db, presented.organizationIdentifier);
  if (enrolled === undefined) {
    throw new ApiError(
      {
        code: 'RESOURCE_UNKNOWN',
        text: `${presented.organizationIdentifier} is not enrolled: POST /psd2/v1/third-parties first`,
      },
      404,
    );
  }
  await register(context, presented);
  return { statusCode: 200, body: { clientId: enrolled.tppId } };
}
