import * as client from 'openid-client';
import { compat, randomPhone } from '../src/fixtures';
import { signInWithAuthJs } from '../src/sdk';

// openid-client v6: discovery from the issuer's https URL (it checks that the document's issuer
// is that URL), then the endpoints it found.

const discover = () => client.discovery(new URL(compat.issuer), compat.m2m.clientId, compat.m2m.clientSecret);

describe('openid-client', () => {
  it("discovers the issuer's endpoints, all on its https URL", async () => {
    const metadata = (await discover()).serverMetadata();
    expect(metadata.issuer).toBe(compat.issuer);
    for (const endpoint of [metadata.token_endpoint, metadata.jwks_uri, metadata.userinfo_endpoint]) {
      expect(endpoint).toMatch(new RegExp(`^https://${compat.domain}/`));
    }
  });

  it('gets a client-credentials token from the discovered token endpoint', async () => {
    const tokens = await client.clientCredentialsGrant(await discover(), { audience: compat.apiAudience });
    expect(tokens).toMatchObject({ token_type: 'bearer', access_token: expect.any(String) });
  });

  it("reads the signed-in user's profile from /userinfo", async () => {
    const phone = randomPhone();
    const tokens = await signInWithAuthJs(phone);
    const profile = await client.fetchUserInfo(await discover(), tokens.accessToken, tokens.claims!.sub);
    expect(profile).toMatchObject({ sub: tokens.claims!.sub, phone_number: phone });
  });
});
