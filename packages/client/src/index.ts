// @psd2-gateway/client: the typed TPP client, as another project imports it (package.json "exports",
// built to dist/ with its declarations). Dependency-free: fetch and Web Crypto only.
export type {
  BalanceOptions,
  ReadOptions,
  TransactionsOptions,
} from './accounts.ts';
export { AccountsApi, CardAccountsApi } from './accounts.ts';
export type * from './answers.ts';
export { BASKET_PATH, BasketsApi } from './baskets.ts';
export { type ConsentOptions, ConsentsApi } from './consents.ts';
export {
  DecoupledApi,
  type DecoupledFinal,
  type DecoupledStartOptions,
  type DecoupledWaitOptions,
  type Sleep,
  timerSleep,
} from './decoupled.ts';
export type { components, operations, paths } from './generated/openapi.ts';
export {
  CREATED,
  expectOk,
  expectStatus,
  type HttpAnswer,
  HttpCaller,
  newRequestId,
  type RequestOptions,
  TppError,
} from './http.ts';
export {
  type NotificationDelivery,
  type NotificationKey,
  type NotificationKeySet,
  type NotificationVerificationCode,
  NotificationVerificationError,
  REQUIRED_COMPONENTS,
  type VerifiedNotification,
  type VerifyNotificationOptions,
  verifyNotification,
} from './notifications.ts';
export { OnboardingApi } from './onboarding.ts';
export type { AnswerOf, FormOf, JsonBodyOf, OperationId } from './operations.ts';
export { type InitiateOptions, TppClient } from './tpp-client.ts';
