// Versioning: Sweden's payment API version 1 ends on 15 November 2026 (spec "Versioning"); from then
// on it answers 410 Gone naming the v2 path (API-NOTES "Paths and prefixes").
import { type Check, Deviation, Skip } from '../check.ts';
import { expectApiError } from '../error-shapes.ts';
import { clip } from '../expect.ts';
import { OTHER_BANK, otherBankBody } from '../fixtures.ts';
import { initiate } from '../flow.ts';

const DECOMMISSIONED = '2026-11-15';

export const versioningChecks: readonly Check[] = [
  {
    id: 'versioning.se-v1-gone',
    title: "Sweden's v1 payment API answers 410 Gone, naming v2",
    ref: 'spec Versioning "Version 1 ... for Sweden ... scheduled for decommissioning on 15 November 2026"; API-NOTES "answer 410 Gone with a body that names the v2 path"',
    needs: ['clientToken'],
    async run(context) {
      const today = new Date().toISOString().slice(0, 10);
      if (today < DECOMMISSIONED)
        throw new Skip(`version 1 is decommissioned on ${DECOMMISSIONED}; today is ${today}`);
      const answer = await initiate(context, context.fact('clientToken'), {
        path: `/psd2/se/v1/payments/${OTHER_BANK}`,
        body: otherBankBody(context.options),
      });
      expectApiError(answer, { status: 410, codes: [] });
      if (!answer.text.includes('/psd2/se/v2/'))
        throw new Deviation('a body naming /psd2/se/v2/', clip(answer.text));
    },
  },
];
