import { fireEvent, render, screen } from '@testing-library/preact';
import type { IdentityApi } from '../src/api';
import type { Confirmation } from '../src/components/ui';
import { Console, type ConsoleContext } from '../src/context';
import type { Client } from '../src/screens/applications-data';
import { ClientSettingsForm } from '../src/screens/client-settings-form';

const client: Client = {
  client_id: 'abc123',
  name: 'Dispatch',
  app_type: 'regular_web',
  callbacks: [],
  allowed_origins: [],
  grant_types: ['authorization_code'],
  token_endpoint_auth_method: 'client_secret_post',
  allowed_logout_urls: [],
  web_origins: [],
  oidc_conformant: true,
  refresh_token: {
    rotation_type: 'rotating',
    expiration_type: 'expiring',
    leeway: 0,
    token_lifetime: 2592000,
    infinite_token_lifetime: true,
    idle_token_lifetime: 2592000,
    infinite_idle_token_lifetime: false,
  },
  cross_origin_authentication: false,
};

/** The form with a recording API and confirm: what it would ask, and what it would send once confirmed. */
function renderForm(record: Client = client) {
  const sent: unknown[] = [];
  const api = {
    PATCH: async (_path: string, init: { body: unknown }) => {
      sent.push(init.body);
      return { data: record, response: { ok: true, status: 200 } };
    },
  } as unknown as IdentityApi;
  const asked: Confirmation[] = [];
  const context = { api, operator: { scopes: new Set(['update:clients']) }, settings: {} } as unknown as ConsoleContext;
  render(
    <Console.Provider value={context}>
      <ClientSettingsForm client={record} apis={[]} confirm={(c) => asked.push(c)} readOnly={false} saved={() => undefined} />
    </Console.Provider>,
  );
  return { sent, asked };
}

describe("an application's settings form", () => {
  it('asks before saving, listing each change, and sends only the changed fields once confirmed', async () => {
    const { sent, asked } = renderForm();
    fireEvent.input(screen.getByLabelText('Allowed logout URLs (one a line)'), { target: { value: 'https://dispatch.example.com/bye' } });
    fireEvent.change(screen.getByLabelText('Rotation'), { target: { value: 'non-rotating' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save…' }));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.title).toBe('Save 2 change(s) to Dispatch?');
    render(<>{asked[0]!.effect}</>);
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Allowed logout URLs: (none) → https://dispatch.example.com/bye',
      'Refresh-token rotation: rotating → non-rotating',
    ]);
    expect(sent).toEqual([]);
    await asked[0]!.run();
    expect(sent).toEqual([{ allowed_logout_urls: ['https://dispatch.example.com/bye'], refresh_token: { ...client.refresh_token, rotation_type: 'non-rotating' } }]);
  });

  it('asks nothing when nothing changed, or when the JSON of other settings does not parse, and says why', () => {
    const { asked } = renderForm();
    fireEvent.click(screen.getByRole('button', { name: 'Save…' }));
    expect(screen.getByRole('alert').textContent).toBe('Nothing changed.');
    fireEvent.input(screen.getByLabelText(/^As JSON/), { target: { value: '{logo' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save…' }));
    expect(screen.getByRole('alert').textContent).toBe('Other Auth0 settings: not valid JSON');
    expect(asked).toEqual([]);
  });

  it("does not offer changing a built-in client's type (the API refuses it for the bootstrap admin)", () => {
    renderForm({ ...client, app_type: 'non_interactive', grant_types: ['client_credentials'], built_in: true });
    expect((screen.getByLabelText('Type') as HTMLSelectElement).disabled).toBe(true);
  });
});
