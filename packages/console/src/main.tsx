import { render } from 'preact';
import { identityApi } from './api';
import { App } from './app';
import { ConsoleAuth, loadSettings } from './auth';
import { ErrorMessage } from './components/ui';
import './styles.css';

const root = document.getElementById('app')!;
// The page's "Loading…" line is plain HTML, not Preact's: render replaces it rather than diffing against it.
root.replaceChildren();

function Page({ title, children }: { title: string; children: preact.ComponentChildren }) {
  return (
    <main class="gate" id="main">
      <h1>{title}</h1>
      {children}
    </main>
  );
}

async function start() {
  let auth: ConsoleAuth;
  try {
    auth = new ConsoleAuth(await loadSettings());
  } catch (err) {
    render(
      <Page title="The console cannot start">
        <ErrorMessage error={err} />
      </Page>,
      root,
    );
    return;
  }
  const signIn = () => auth.signIn();
  const signOut = () => void auth.signOut();
  let operator;
  try {
    await auth.finishRedirect();
    operator = await auth.operator();
  } catch (err) {
    render(
      <Page title="Sign-in failed">
        <ErrorMessage error={err} />
        <button type="button" class="primary" onClick={signIn}>
          Sign in again
        </button>
      </Page>,
      root,
    );
    return;
  }
  if (!operator) {
    document.title = 'Sign in · smsauth console';
    render(
      <Page title="smsauth console">
        <p>Operators sign in with their phone through the hosted login.</p>
        <button type="button" class="primary" onClick={signIn}>
          Sign in
        </button>
      </Page>,
      root,
    );
    return;
  }
  if (operator.scopes.size === 0) {
    document.title = 'No access · smsauth console';
    render(
      <Page title="You have no role in this console">
        <p role="alert">
          You are signed in as <strong>{operator.name}</strong>, but no role gives you any permission on the management API, so the console has
          nothing to show. Ask an administrator to give your user a role (Admin, Support or Viewer), then sign in again.
        </p>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </Page>,
      root,
    );
    return;
  }
  const api = identityApi(auth.settings.domain, () => auth.token());
  render(<App context={{ api, operator, settings: auth.settings }} signOut={signOut} />, root);
}

void start();
