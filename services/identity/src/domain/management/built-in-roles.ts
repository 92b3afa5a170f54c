import { MANAGEMENT_SCOPES } from '@smsauth/contracts';

/** A role the service creates at start: its key (stable), name, description and management scopes. */
export interface BuiltInRole {
  key: 'admin' | 'support' | 'viewer';
  name: string;
  description: string;
  /** Given once, when the role is created; operators may change them after (but Admin's). */
  scopes: readonly string[];
}

const READ_SCOPES = MANAGEMENT_SCOPES.filter((scope) => scope.startsWith('read:') && scope !== 'read:client_credentials');

/**
 * Admin holds every management scope, always (its permissions are restored at each start and
 * cannot be changed). Support reads users, logs, figures and connections, may block and unblock users,
 * end their sessions and lift the fraud guard's blocks. Viewer reads, changes nothing.
 */
export const BUILT_IN_ROLES: readonly BuiltInRole[] = [
  { key: 'admin', name: 'Admin', description: 'Every management scope.', scopes: MANAGEMENT_SCOPES },
  {
    key: 'support',
    name: 'Support',
    description: 'Reads users, logs and figures; blocks and unblocks users, ends their sessions.',
    scopes: [
      'read:users',
      'update:users',
      'read:user_blocks',
      'delete:user_blocks',
      'read:sessions',
      'delete:sessions',
      'read:logs',
      'read:stats',
      'read:connections',
      'read:sms_fraud_blocks',
      'delete:sms_fraud_blocks',
      'read:clients',
      'read:roles',
    ],
  },
  { key: 'viewer', name: 'Viewer', description: 'Reads everything but secrets; changes nothing.', scopes: READ_SCOPES },
];

export const ADMIN_ROLE_KEY = 'admin';
