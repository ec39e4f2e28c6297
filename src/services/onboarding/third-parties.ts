// Onboarding of TPPs (spec rows 2 and 3): enrollment from the certificate presented in TLS, and
// further certificates. In the sandbox the same endpoints work without a certificate.

import { randomInt } from 'node:crypto';
import { loadQwacReader, type PeerIdentity, type Qwac } from '../../certificates/qwac.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { ApiError, apiError } from '../../domain/errors.ts';
import { recordEvents } from '../../store/audit/record.ts';
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

async function register(
  context: ServiceContext,
  qwac: Qwac,
  actor: AuditActor | undefined,
): Promise<{ tppId: string; created: boolean }> {
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
    const who = { ...actor, tppId: tpp.tppId, certificate: qwac.thumbprint };
    await recordEvents(trx, [
      ...(created
        ? [{ ...who, event: 'tpp.enrolled', outcome: 'ok', resource: tpp.tppId, detail: { name: tpp.name } }]
        : []),
      {
        ...who,
        event: 'certificate.added',
        outcome: 'ok',
        resource: qwac.thumbprint,
        detail: { scopes: qwac.scopes, notAfter: qwac.notAfter.toISOString() },
      },
    ]);
    return { tppId: tpp.tppId, created };
  });
}

/** POST /psd2/v1/third-parties: 201 for a new TPP, 200 with the existing id when enrolled already. */
export function enrollThirdParty(
  context: ServiceContext,
  peer: PeerIdentity,
  actor?: AuditActor,
): Promise<Answer<ThirdPartyResponse>> {
  return recordingRefusal(context, actor, () => enroll(context, peer, actor));
}

/**
 * A refused certificate (expired, untrusted, without a PSD2 role, removed by the bank, not the one in
 * TLS) in the audit trail as `certificate.refused`, standing alone: nothing else is written for it.
 */
async function recordingRefusal<T>(
  context: ServiceContext,
  actor: AuditActor | undefined,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const code = error instanceof ApiError ? error.messages[0]?.code : undefined;
    if (code !== undefined && (code.startsWith('CERTIFICATE_') || code === 'ROLE_INVALID')) {
      await recordEvents(context.db, [
        {
          ...actor,
          event: 'certificate.refused',
          outcome: code,
          resource: actor?.certificate ?? null,
          detail: { reason: (error as ApiError).messages[0]?.text ?? null },
        },
      ]);
    }
    throw error;
  }
}

async function enroll(
  context: ServiceContext,
  peer: PeerIdentity,
  actor: AuditActor | undefined,
): Promise<Answer<ThirdPartyResponse>> {
  if (context.policy.onboardingWithoutCertificate && peer.kind === 'none') {
    // Rehearsing onboarding in the sandbox: a sandbox TPP id of the documented shape.
    const number = String(randomInt(10_000_000, 100_000_000));
    const { tppId } = await context.db.transaction(async (trx) => {
      const { tpp } = await enrollTpp(trx, {
        tppId: `XX-SANDBOX-${number}`,
        organizationIdentifier: `PSDXX-SANDBOX-${number}`,
        name: 'Sandbox TPP',
        createdAt: context.clock(),
      });
      await recordEvents(trx, [
        {
          ...actor,
          tppId: tpp.tppId,
          event: 'tpp.enrolled',
          outcome: 'ok',
          resource: tpp.tppId,
          detail: { name: tpp.name },
        },
      ]);
      return tpp;
    });
    return { statusCode: 201, body: { clientId: tppId } };
  }
  const qwac = requireQwac(peer);
  requireRole(qwac);
  const { tppId, created } = await register(context, qwac, actor);
  return { statusCode: created ? 201 : 200, body: { clientId: tppId } };
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** PUT /psd2/v1/third-parties: adds the certificate used in TLS, given in the body too. */
export function addThirdPartyCertificate(
  context: ServiceContext,
  peer: PeerIdentity,
  clientCertificate: string,
  actor?: AuditActor,
): Promise<Answer<ThirdPartyResponse>> {
  return recordingRefusal(context, actor, () => addCertificateOf(context, peer, clientCertificate, actor));
}

async function addCertificateOf(
  context: ServiceContext,
  peer: PeerIdentity,
  clientCertificate: string,
  actor: AuditActor | undefined,
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
  await register(context, presented, actor);
  return { statusCode: 200, body: { clientId: enrolled.tppId } };
}
