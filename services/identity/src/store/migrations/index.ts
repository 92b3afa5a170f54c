import * as initial from './001-initial';
import * as codeParameters from './002-code-parameters';
import * as authorizeTransactions from './003-authorize-transactions';
import * as managementLists from './004-management-lists';
import * as clientAuthentication from './005-client-authentication';
import * as managedUsersAndNextSigningKey from './006-managed-users-and-next-signing-key';
import * as canonicalPhoneNumbers from './007-canonical-phone-numbers';
import * as smsFraudGuard from './008-sms-fraud-guard';
import * as m2mLookupNotifications from './011-m2m-lookup-notifications';
import * as webLogin from './012-web-login';
import * as startIdempotency from './013-start-idempotency';
import * as passkeys from './014-passkeys';
import * as channels from './015-channels';
import * as rbac from './016-rbac';
import * as loginStatsAndPhoneLookup from './017-login-stats-and-phone-lookup';
import * as completedSignIns from './018-completed-sign-ins';
import * as statsByChannel from './019-stats-by-channel';
import * as storeKeys from './020-store-keys';
import * as userJobs from './021-user-jobs';
import * as clientDescription from './022-client-description';
import * as auth0ClientSettings from './023-auth0-client-settings';
import * as requestedClaims from './024-requested-claims';
import * as logoutNotifications from './025-logout-notifications';
import * as crossOriginAuthentication from './026-cross-origin-authentication';
import * as brandingAndTexts from './027-branding-and-texts';
import * as loginLanguage from './028-login-language';
import * as statsByProvider from './029-stats-by-provider';
import * as smsPrices from './030-sms-prices';
import type { MigrationContext } from './context';
import type { SqlExecutor } from '../sql-client';

export type { MigrationContext } from './context';
import * as tenantLogs from './009-tenant-logs';
import * as logStreams from './010-log-streams';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * Data changes SQL cannot make (they need the service's code, handed in as the context),
   * run after `sql` in the same transaction.
   */
  afterSql?: (tx: SqlExecutor, context: MigrationContext) => Promise<void>;
  /**
   * Set only on a migration that removes or changes what an older release reads (drops, renames,
   * type changes, new NOT NULL constraints): why that is safe now, naming the release since which
   * nothing reads it. Replicas of the previous release run on the new schema during a rolling
   * upgrade, so every other migration only adds (expand now, contract a release later); the
   * migrations test refuses a contracting statement without this.
   */
  contracts?: string;
}

/**
 * Ordered; never edit an applied migration, add a new one. TypeScript modules rather than
 * .sql files because tsc does not copy .sql files into dist/.
 */
export const migrations: readonly Migration[] = [
  { version: 1, name: 'initial', sql: initial.sql },
  { version: 2, name: 'code-parameters', sql: codeParameters.sql },
  { version: 3, name: 'authorize-transactions', sql: authorizeTransactions.sql },
  { version: 4, name: 'management-lists', sql: managementLists.sql },
  { version: 5, name: 'client-authentication', sql: clientAuthentication.sql },
  { version: 6, name: 'managed-users-and-next-signing-key', sql: managedUsersAndNextSigningKey.sql },
  { version: 7, name: 'canonical-phone-numbers', sql: '', afterSql: canonicalPhoneNumbers.normaliseUserPhoneNumbers },
  { version: 8, name: 'sms-fraud-guard', sql: smsFraudGuard.sql },
  { version: 9, name: 'tenant-logs', sql: tenantLogs.sql },
  { version: 10, name: 'log-streams', sql: logStreams.sql },
  { version: 11, name: 'm2m-lookup-notifications', sql: m2mLookupNotifications.sql },
  { version: 12, name: 'web-login', sql: webLogin.sql },
  { version: 13, name: 'start-idempotency', sql: startIdempotency.sql },
  { version: 14, name: 'passkeys', sql: passkeys.sql },
  { version: 15, name: 'channels', sql: channels.sql },
  { version: 16, name: 'rbac', sql: rbac.sql },
  { version: 17, name: 'login-stats-and-phone-lookup', sql: loginStatsAndPhoneLookup.sql },
  { version: 18, name: 'completed-sign-ins', sql: completedSignIns.sql },
  { version: 19, name: 'stats-by-channel', sql: statsByChannel.sql },
  { version: 20, name: 'store-keys', sql: storeKeys.sql },
  { version: 21, name: 'user-jobs', sql: userJobs.sql },
  { version: 22, name: 'client-description', sql: clientDescription.sql },
  { version: 23, name: 'auth0-client-settings', sql: auth0ClientSettings.sql },
  { version: 24, name: 'requested-claims', sql: requestedClaims.sql },
  { version: 25, name: 'logout-notifications', sql: logoutNotifications.sql },
  { version: 26, name: 'cross-origin-authentication', sql: crossOriginAuthentication.sql },
  { version: 27, name: 'branding-and-texts', sql: brandingAndTexts.sql },
  { version: 28, name: 'login-language', sql: loginLanguage.sql },
  { version: 29, name: 'stats-by-provider', sql: statsByProvider.sql },
  { version: 30, name: 'sms-prices', sql: smsPrices.sql },
];
