import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { certificateFacts, certificateSerial, selfSignedCertificate } from '../src/domain/tokens/key-certificate';

const privateKeyPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe("a signing key's self-signed certificate", () => {
  // Serials whose first random byte once made a certificate OpenSSL refuses ("illegal padding").
  it.each(['00', '01', '7f', '80', 'ff'])('is a certificate OpenSSL reads when the random serial starts with %s', (first) => {
    const random = Buffer.from(`${first}${'00'.repeat(15)}`, 'hex');
    const pem = selfSignedCertificate(privateKeyPem, 'auth.example.com', new Date('2026-11-24T00:00:00Z'), random);
    const cert = new X509Certificate(pem);
    expect(cert.subject).toBe('CN=auth.example.com');
    expect(cert.checkPrivateKey(createPrivateKey(privateKeyPem))).toBe(true);
    expect(certificateFacts(pem).x5c).toHaveLength(1);
  });

  it('has a positive serial with no leading zero byte, keeping the other random bits', () => {
    for (const first of [0x00, 0x01, 0x7f, 0x80, 0xff]) {
      const random = Buffer.from([first, 0xab, 0xcd]);
      const serial = Buffer.from(certificateSerial(random), 'hex');
      expect(serial[0]).toBeGreaterThanOrEqual(0x01);
      expect(serial[0]).toBeLessThanOrEqual(0x7f);
      expect(serial.subarray(1)).toEqual(Buffer.from([0xab, 0xcd]));
    }
    expect(certificateSerial(Buffer.from([0x00]))).toBe('01');
  });
});
