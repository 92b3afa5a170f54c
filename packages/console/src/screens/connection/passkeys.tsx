import { useState } from 'preact/hooks';
import { FieldError, refusedField } from '../../components/field-error';
import { inputValue, usePatch, type SectionProps } from './section';
import { SettingsForm } from './settings-form';
import type { Connection } from '../fraud-data';

type Passkeys = NonNullable<Connection['options']['passkeys']>;

/** packages/contracts PASSKEYS_OFF: what a connection without the setting has. */
const OFF: Passkeys = { enabled: false, offer_after_sms_logins: 3, user_verification: 'required' };

/** `options.passkeys` (docs/passkeys.md): offered after an SMS login, then used instead of the SMS. */
export function PasskeySettings({ connection, confirm, reload, canUpdate }: SectionProps) {
  const { refusal, patch, notice, saved } = usePatch(connection, reload);
  const stored = { ...OFF, ...(connection.options.passkeys as Partial<Passkeys> | undefined) };
  const [enabled, setEnabled] = useState(stored.enabled);
  const [offerAfter, setOfferAfter] = useState(String(stored.offer_after_sms_logins));
  const [verification, setVerification] = useState(stored.user_verification);

  const changes: Record<string, unknown> = {};
  const effects: string[] = [];
  if (enabled !== stored.enabled) {
    changes.enabled = enabled;
    effects.push(
      enabled
        ? 'After an SMS login the hosted login page offers to create a passkey, and the phone page accepts passkeys: returning users sign in without an SMS.'
        : 'The hosted login pages become SMS only: no passkey is offered or accepted (users keep their passkeys, which work again if you turn passkeys back on).',
    );
  }
  if (Number(offerAfter) !== stored.offer_after_sms_logins) {
    changes.offer_after_sms_logins = Number(offerAfter);
    effects.push(`After “Not now”, the offer comes back at the user's ${offerAfter === '1' ? 'next SMS login' : `SMS login number ${offerAfter}`}.`);
  }
  if (verification !== stored.user_verification) {
    changes.user_verification = verification;
    effects.push(
      verification === 'required'
        ? 'Registering and signing in with a passkey require the authenticator to verify the user (PIN, biometrics); authenticators that cannot are refused.'
        : 'Authenticators verify the user when they can; a security key without a PIN also works.',
    );
  }

  return (
    <SettingsForm
      id="passkeys"
      heading="Passkeys"
      question={`Change passkeys on ${connection.name}?`}
      effects={effects}
      apply={() => patch({ options: { passkeys: changes } })}
      applied={() => saved('Passkey settings saved.')}
      save="Save passkey settings…"
      notice={notice}
      confirm={confirm}
      canUpdate={canUpdate}
    >
      <fieldset disabled={!canUpdate}>
        <legend>Passkeys on the hosted login</legend>
        <label class="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled((e.target as HTMLInputElement).checked)} /> Offer passkeys after an SMS login and accept them
        </label>
        <label for="passkey-offer">After “Not now”, offer again at SMS login number (1 to 100)</label>
        <input
          id="passkey-offer"
          type="number"
          min={1}
          max={100}
          required
          value={offerAfter}
          onInput={(e) => setOfferAfter(inputValue(e))}
          {...refusedField(refusal, 'options.passkeys.offer_after_sms_logins', 'passkey-offer-error')}
        />
        <FieldError error={refusal} path="options.passkeys.offer_after_sms_logins" id="passkey-offer-error" />
        <label for="passkey-verification">User verification</label>
        <select id="passkey-verification" value={verification} onChange={(e) => setVerification((e.target as HTMLSelectElement).value as Passkeys['user_verification'])}>
          <option value="required">required (PIN or biometrics every time)</option>
          <option value="preferred">preferred (when the authenticator can)</option>
        </select>
        <FieldError error={refusal} path="options.passkeys.user_verification" id="passkey-verification-error" />
      </fieldset>
    </SettingsForm>
  );
}
