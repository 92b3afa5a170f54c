import { SigningKeyRecordSchema, SigningKeyRotationSchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import * as signingKeys from '../../domain/management/signing-keys';
import { keyChangeRecorder, type ManagementDependencies } from './context';
import { managementOperation } from './declare';
import { arrayOf, record } from './responses';

const byKid = z.object({ kid: z.string() });
const KID = { kid: 'Key id.' };

/** `/keys/signing`: the token signing keys (current, next, previous), their rotation and revocation. */
export function signingKeyOperations({ store, keyRing, clock }: ManagementDependencies): Operation[] {
  const keyRecord = record('SigningKeyRecord', SigningKeyRecordSchema);
  return [
    managementOperation({
      method: 'get',
      path: '/keys/signing',
      summary: 'List signing keys',
      scope: 'read:signing_keys',
      status: '200',
      response: arrayOf('SigningKeyRecord', SigningKeyRecordSchema),
      errors: [],
      handle: () => signingKeys.listSigningKeys(store, keyRing),
    }),
    managementOperation({
      method: 'post',
      path: '/keys/signing/rotate',
      summary: 'Rotate: the next key becomes current, a new next key is made; answers the new next key',
      scope: 'create:signing_keys',
      status: '201',
      response: record('SigningKeyRotation', SigningKeyRotationSchema),
      errors: [],
      handle: ({ req, res }) => signingKeys.rotateSigningKey(keyRing, keyChangeRecorder(clock, req, res, 'Rotate the signing key')),
    }),
    managementOperation({
      method: 'get',
      path: '/keys/signing/:kid',
      summary: 'Get a signing key',
      scope: 'read:signing_keys',
      params: byKid,
      paramDescriptions: KID,
      status: '200',
      response: keyRecord,
      errors: ['404'],
      handle: ({ params }) => signingKeys.getSigningKey(store, keyRing, params.kid),
    }),
    managementOperation({
      method: 'put',
      path: '/keys/signing/:kid/revoke',
      summary: 'Revoke a signing key (not the current or the next one)',
      scope: 'update:signing_keys',
      params: byKid,
      paramDescriptions: KID,
      status: '200',
      response: keyRecord,
      errors: ['404', '409'],
      handle: ({ params, req, res }) =>
        signingKeys.revokeSigningKey(store, keyRing, params.kid, keyChangeRecorder(clock, req, res, 'Revoke a signing key')),
    }),
  ];
}
