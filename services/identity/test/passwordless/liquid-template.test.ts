import { parseLiquidTemplate, renderLiquidTemplate } from '../../src/domain/passwordless/liquid-template';

const variables = { code: '042917', phoneNumber: '+14155550123', applicationName: 'Acme', connectionName: 'sms', requestLanguage: null, send: 'code' as const };

describe('parseLiquidTemplate', () => {
  it('parses a template text once: a second start reuses the parsed template', () => {
    const text = `Code {{ code }} (${Math.random()})`;
    expect(parseLiquidTemplate(text)).toBe(parseLiquidTemplate(text));
  });

  it('keeps a bounded number of parsed templates, dropping the least recently used', () => {
    const first = 'First {{ code }}';
    const parsed = parseLiquidTemplate(first);
    for (let i = 0; i < 250; i += 1) parseLiquidTemplate(`Filler ${i} {{ code }}`);
    expect(parseLiquidTemplate(first)).not.toBe(parsed);
  });

  it('renders nil request_language through default', () => {
    expect(renderLiquidTemplate("{{ request_language | default: 'en' }} {{ code }}", variables)).toBe('en 042917');
  });
});
