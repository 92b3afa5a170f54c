import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminToken } from '../helpers';
import { describeOnEachDatabase, FlowHarness } from '../passwordless/flow-harness';

const bundle = (language: string) => JSON.parse(readFileSync(join(__dirname, '../../locales/login', `${language}.json`), 'utf8')) as Record<string, string>;

describeOnEachDatabase('GET /api/v2/prompts/{prompt}/default-text/{language}', (database) => {
  let h: FlowHarness;
  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
  });
  afterAll(() => h?.close());

  it('answers the bundled texts of the prompt\'s screens, keyed as custom text is', async () => {
    const res = await h.management('get', '/prompts/login-passwordless/default-text/fr').expect(200);
    const fr = bundle('fr');
    expect(res.body['login-passwordless-sms-otp'].title).toBe(fr['login-passwordless.login-passwordless-sms-otp.title']);
    expect(res.body['login-passwordless-sms-otp'].buttonText).toBe(fr['login-passwordless.login-passwordless-sms-otp.buttonText']);
    const en = bundle('en');
    const englishKeys = Object.keys(en).filter((key) => key.startsWith('login-passwordless.login-passwordless-sms-otp.')).map((key) => key.split('.')[2]);
    expect(Object.keys(res.body['login-passwordless-sms-otp']).sort()).toEqual(englishKeys.sort());
  });

  it('does not change with the tenant\'s custom text', async () => {
    await h.http().put('/api/v2/prompts/common/custom-text/en').set('authorization', `Bearer ${h.admin}`).send({ common: { languageLabel: 'Idiom' } }).expect(200);
    const res = await h.management('get', '/prompts/common/default-text/en').expect(200);
    expect(res.body.common.languageLabel).toBe(bundle('en')['common.common.languageLabel']);
  });

  it('refuses a prompt without texts on the pages and a language not bundled, with 400', async () => {
    const prompt = await h.management('get', '/prompts/signup/default-text/en').expect(400);
    expect(JSON.stringify(prompt.body)).toMatch(/login-passwordless/);
    await h.management('get', '/prompts/common/default-text/xx').expect(400);
  });

  it('needs read:prompts', async () => {
    const other = await adminToken(h.identity.app, 'read:branding');
    await h.http().get('/api/v2/prompts/common/default-text/en').set('authorization', `Bearer ${other}`).expect(403);
    const reader = await adminToken(h.identity.app, 'read:prompts');
    await h.http().get('/api/v2/prompts/common/default-text/en').set('authorization', `Bearer ${reader}`).expect(200);
  });
});
