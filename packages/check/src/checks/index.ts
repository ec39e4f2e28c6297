// Every check, in the order the flow runs: a check comes after the checks whose facts it needs.
import type { Check } from '../check.ts';
import { accountInformationChecks } from './account-information.ts';
import { authorizeChecks } from './authorize.ts';
import { basketChecks } from './basket.ts';
import { bodyChecks } from './bodies.ts';
import { codeChecks } from './codes.ts';
import { decoupledChecks } from './decoupled.ts';
import { executionChecks } from './execution.ts';
import { headerChecks } from './headers.ts';
import { idempotencyChecks } from './idempotency.ts';
import { initiationChecks } from './initiation.ts';
import { tokenChecks } from './token.ts';
import { versioningChecks } from './versioning.ts';

export const CHECKS: readonly Check[] = [
  ...tokenChecks,
  ...initiationChecks,
  ...headerChecks,
  ...bodyChecks,
  ...idempotencyChecks,
  ...authorizeChecks,
  ...codeChecks,
  ...executionChecks,
  ...decoupledChecks,
  ...basketChecks,
  ...accountInformationChecks,
  ...versioningChecks,
];
