import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { detachedKeyPair } from '@smsauth/test-support';

/**
 * A WebAuthn authenticator in software, for HTTP-level tests: it makes real P-256 key pairs,
 * real authenticator data and real ES256 signatures, as a browser with a platform passkey would
 * hand them to the page (the JSON of @simplewebauthn/browser). Each ceremony's inputs can be
 * bent (another RP ID, another origin, a wrong user handle) to test what identity refuses.
 */

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

/** The AAGUID it reports: Google Password Manager's, so the friendly name is known. */
export const SOFTWARE_AAGUID = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';

export interface SoftwarePasskey {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  counter: number;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
}

function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  // kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x, 'base64url')],
      [-3, Buffer.from(jwk.y, 'base64url')],
    ]),
  );
}

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

export class SoftwareAuthenticator {
  readonly passkeys: SoftwarePasskey[] = [];

  constructor(readonly origin: string) {}

  /** navigator.credentials.create(): a discoverable passkey, attestation none, the user verified. */
  create(options: CreationOptions, bend: { rpId?: string; origin?: string; userVerified?: boolean } = {}) {
    const rpId = bend.rpId ?? options.rp.id!;
    const { privateKey, publicKey } = detachedKeyPair('ec', { namedCurve: 'P-256' });
    const credentialId = randomBytes(32);
    const flags = FLAG_UP | (bend.userVerified === false ? 0 : FLAG_UV) | FLAG_BE | FLAG_BS | FLAG_AT;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([flags]),
      counterBytes(0),
      Buffer.from(SOFTWARE_AAGUID.replace(/-/g, ''), 'hex'),
      idLength,
      credentialId,
      Buffer.from(coseKey(publicKey)),
    ]);
    const clientData = { type: 'webauthn.create', challenge: options.challenge, origin: bend.origin ?? this.origin, crossOrigin: false };
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]]) as never);
    const passkey: SoftwarePasskey = { id: b64url(credentialId), rpId, userHandle: options.user.id, privateKey, publicKey, counter: 0 };
    this.passkeys.push(passkey);
    return {
      passkey,
      credential: {
        id: passkey.id,
        rawId: passkey.id,
        type: 'public-key',
        response: { clientDataJSON: b64url(Buffer.from(JSON.stringify(clientData))), attestationObject: b64url(attestationObject), transports: ['internal', 'hybrid'] },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      },
    };
  }

  /**
   * navigator.credentials.get(): an assertion by `passkey` for the options' challenge; the
   * counter goes up by one each time (as authenticators that keep one do).
   */
  get(
    passkey: SoftwarePasskey,
    options: RequestOptions,
    bend: { rpId?: string; origin?: string; userHandle?: string | null; counter?: number; tamper?: boolean } = {},
  ) {
    passkey.counter = bend.counter ?? passkey.counter + 1;
    const rpId = bend.rpId ?? options.rpId ?? passkey.rpId;
    const authData = Buffer.concat([sha256(rpId), Buffer.from([FLAG_UP | FLAG_UV | FLAG_BE | FLAG_BS]), counterBytes(passkey.counter)]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: bend.origin ?? this.origin, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), passkey.privateKey);
    // A bit of the DER-encoded r: still well-formed, no longer the signature of this data.
    if (bend.tamper) signature.writeUInt8(signature.readUInt8(10) ^ 0x01, 10);
    const userHandle = bend.userHandle === undefined ? passkey.userHandle : bend.userHandle;
    return {
      id: passkey.id,
      rawId: passkey.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
