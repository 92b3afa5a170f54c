// Request examples, from the README's flows: the management API's and the authentication endpoints'.

export const EXAMPLE_PHONE = '+14155552671';
export const EXAMPLE_CLIENT = 'Dq1jB1f2kPq1nUzZsq3aT8Qx';
export const EXAMPLE_CONNECTION = 'sms';

export const CONNECTION_EXAMPLES = {
  smsConnection: {
    summary: 'An SMS connection delivering through the gateway',
    value: {
      options: {
        name: EXAMPLE_CONNECTION,
        strategy: 'sms',
        provider: 'sms_gateway',
        gateway_url: 'http://localhost:4001/sms',
        from: '+14155550100',
        syntax: 'md_with_macros',
        template: 'Your code is @@password@@',
        totp: { time_step: 300, length: 6 },
        brute_force_protection: true,
        disable_signup: false,
        default_country: 'US',
      },
      enabled_clients: [EXAMPLE_CLIENT],
    },
  },
  liquidConnection: {
    summary: 'A Liquid template by language, with domain-bound codes',
    value: {
      options: {
        name: 'sms-liquid',
        strategy: 'sms',
        provider: 'sms_gateway',
        gateway_url: 'http://localhost:4001/sms',
        syntax: 'liquid',
        template:
          "{% case request_language | slice: 0, 2 %}{% when 'es' %}Tu código de {{ application.name }} es {{ code }}{% when 'fr' %}Votre code {{ application.name }} est {{ code }}{% else %}Your {{ application.name }} code is {{ code }}{% endcase %}",
        webotp: { origin: 'https://login.example.com', app_hashes: ['FA+9qCX9VSu'] },
      },
      enabled_clients: [EXAMPLE_CLIENT],
    },
  },
};

export const SMS_TEMPLATE_TEST_EXAMPLES = {
  stored: { summary: 'The stored template, in Spanish', value: { variables: { request_language: 'es-ES' } } },
  draft: { summary: 'A draft template', value: { syntax: 'liquid', template: 'Your code is {{ code }}' } },
};
