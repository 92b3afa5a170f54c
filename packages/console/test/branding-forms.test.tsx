import { fireEvent, render, screen } from '@testing-library/preact';
import type { ComponentChildren } from 'preact';
import { identityApi } from '../src/api';
import type { Confirmation } from '../src/components/ui';
import { Console } from '../src/context';
import { BrandForm } from '../src/screens/branding/brand-form';
import { brandDraftOf, type BrandDraft } from '../src/screens/branding/branding-data';
import { LanguagesForm } from '../src/screens/branding/languages-form';
import { useState } from 'preact/hooks';

// The forms never call the API here: a save goes through `confirm`, which these tests only record.
function withConsole(children: ComponentChildren) {
  const context = { api: identityApi('https://identity.invalid'), operator: { name: 'Op', userId: 'sms|1', scopes: new Set<string>() }, settings: { domain: '', client_id: '', audience: '', redirect_uri: '' } };
  return <Console.Provider value={context}>{children}</Console.Provider>;
}

/** The sentences of the confirmation the form asked for (its `effect` list). */
function effectsOf(confirm: jest.Mock): string[] {
  const { container } = render((confirm.mock.calls[0]![0] as Confirmation).effect as preact.VNode);
  return [...container.querySelectorAll('li')].map((li) => li.textContent ?? '');
}

function Brand({ confirm, canUpdate = true }: { confirm: (c: Confirmation) => void; canUpdate?: boolean }) {
  const saved = { colors: { primary: '#0059d6' } };
  const [draft, setDraft] = useState<BrandDraft>(brandDraftOf(saved));
  return withConsole(<BrandForm saved={saved} draft={draft} setDraft={setDraft} confirm={confirm} reload={() => undefined} canUpdate={canUpdate} />);
}

describe('the brand form', () => {
  it('offers saving only once a field changed, and the confirmation lists each changed field', () => {
    const confirm = jest.fn();
    render(<Brand confirm={confirm} />);
    const save = screen.getByRole('button', { name: 'Save the brand…' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.input(screen.getByLabelText(/^Primary colour \(/), { target: { value: '#AA0000' } });
    fireEvent.input(screen.getByLabelText('Logo URL'), { target: { value: 'https://cdn.example.com/logo.svg' } });
    expect(save.disabled).toBe(false);
    fireEvent.click(save);
    expect(effectsOf(confirm)).toEqual(['logo_url: https://cdn.example.com/logo.svg (none now)', 'colors.primary: #AA0000 (now #0059d6)']);
  });

  it('keeps the colour picker and the text field in step', () => {
    render(<Brand confirm={jest.fn()} />);
    fireEvent.input(screen.getByLabelText(/^Primary colour \(/), { target: { value: '#0A5' } });
    expect((screen.getByLabelText('Primary colour, picker') as HTMLInputElement).value).toBe('#00aa55');
  });

  it('has no save button and disabled fields without update:branding', () => {
    render(<Brand confirm={jest.fn()} canUpdate={false} />);
    expect(screen.queryByRole('button', { name: 'Save the brand…' })).toBeNull();
    expect((screen.getByLabelText('Logo URL') as HTMLInputElement).closest('fieldset')!.disabled).toBe(true);
  });
});

describe('the languages form', () => {
  it('saves the default first and lists what is added, by name', () => {
    const confirm = jest.fn();
    render(withConsole(<LanguagesForm saved={['en', 'fr']} confirm={confirm} reload={() => undefined} canUpdate />));
    fireEvent.click(screen.getByLabelText(/^Arabic/));
    fireEvent.change(screen.getByLabelText(/^Default language/), { target: { value: 'fr' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save the languages…' }));
    expect(effectsOf(confirm)).toEqual(['default language: French (français) (now English)', 'languages added: Arabic (العربية) (none now)']);
  });

  it('does not let the default language be unchecked', () => {
    render(withConsole(<LanguagesForm saved={['de', 'en']} confirm={jest.fn()} reload={() => undefined} canUpdate />));
    expect((screen.getByLabelText(/^German/) as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByLabelText(/^English/) as HTMLInputElement).disabled).toBe(false);
  });
});
