// Onboarding's tables: the TPPs, the certificates each holds, and apps' product subscriptions.
import { pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

export const tpps = pgTable('tpps', {
  tppId: text('tpp_id').primaryKey(),
  organizationIdentifier: text('organization_identifier').notNull(),
  name: text('name').notNull(),
  createdAt: instant('created_at').notNull(),
});

export const tppCertificates = pgTable('tpp_certificates', {
  thumbprint: text('thumbprint').primaryKey(),
  tppId: text('tpp_id').notNull(),
  scopes: text('scopes').notNull(),
  notAfter: instant('not_after').notNull(),
  addedAt: instant('added_at').notNull(),
  /** When the bank removed the certificate from the TPP's set (null: the TPP holds it). */
  removedAt: instant('removed_at'),
});

export const subscriptions = pgTable('subscriptions', {
  subscriptionId: text('subscription_id').primaryKey(),
  clientId: text('client_id').notNull(),
  productName: text('product_name').notNull(),
  createdAt: instant('created_at').notNull(),
});
