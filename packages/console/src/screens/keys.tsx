import { ok, type Schema } from '../api';
import { ErrorMessage, formatDate, Loading, useConfirm, useLoad } from '../components/ui';
import { useCan, useConsole } from '../context';

type SigningKey = Schema<'SigningKeyRecord'>;

function stateOf(k: SigningKey): string {
  return k.revoked ? 'revoked' : k.current ? 'current' : k.next ? 'next' : k.previous ? 'previous' : 'retired';
}

/**
 * The API refuses revoking the current key (it signs every new token) and the next one (rotation
 * needs it): the console offers revoking only the others. Any other refusal is shown in the API's words.
 */
function mayRevoke(k: SigningKey): boolean {
  return !k.revoked && !k.current && !k.next;
}

export function Keys() {
  const { api } = useConsole();
  const can = useCan();
  const [confirm, dialog] = useConfirm();
  const keys = useLoad(() => ok(api.GET('/api/v2/keys/signing')), []);
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">Signing keys</h1>
      {dialog}
      {can('create:signing_keys') && (
        <button
          type="button"
          class="primary"
          onClick={() =>
            confirm({
              title: 'Rotate the signing key?',
              effect: (
                <p>
                  The next key (published since the last rotation) starts signing tokens; the current one stays published as previous, so tokens it signed
                  still verify; the key before it is unpublished; a new next key is made.
                </p>
              ),
              action: 'Rotate',
              run: () => ok(api.POST('/api/v2/keys/signing/rotate')),
              done: keys.reload,
            })
          }
        >
          Rotate the signing key…
        </button>
      )}
      {keys.error ? (
        <ErrorMessage error={keys.error} />
      ) : !keys.data ? (
        <Loading what="keys" />
      ) : (
        <div class="table-scroll" tabIndex={0}>
          <table data-testid="signing-keys">
            <caption class="visually-hidden">Signing keys</caption>
            <thead>
              <tr>
                <th scope="col">Key id</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                <th scope="col">Current since</th>
                {can('update:signing_keys') && (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {keys.data!.map((k) => (
                <tr key={k.kid}>
                  <th scope="row">
                    <code>{k.kid}</code>
                  </th>
                  <td>{stateOf(k)}</td>
                  <td>{formatDate(k.created_at)}</td>
                  <td>{formatDate(k.current_since)}</td>
                  {can('update:signing_keys') && (
                    <td>
                      {mayRevoke(k) && (
                        <button
                          type="button"
                          class="danger"
                          onClick={() =>
                            confirm({
                              title: `Revoke the signing key ${k.kid}?`,
                              effect: (
                                <p>
                                  The key is unpublished for good: every token it signed (access and ID tokens still in use, this console's included if it
                                  holds one) stops verifying at once, and its holders must sign in or renew again. It cannot be undone.
                                </p>
                              ),
                              action: 'Revoke the key',
                              danger: true,
                              run: () => ok(api.PUT('/api/v2/keys/signing/{kid}/revoke', { params: { path: { kid: k.kid } } })),
                              done: keys.reload,
                            })
                          }
                        >
                          Revoke…<span class="visually-hidden"> {k.kid}</span>
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
