import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { Console, type ConsoleContext } from './context';
import { href, useRoute } from './router';
import { Apis } from './screens/apis';
import { Applications } from './screens/applications';
import { Branding } from './screens/branding';
import { Connections } from './screens/connections';
import { FraudGuard } from './screens/fraud-guard';
import { Keys } from './screens/keys';
import { Logs } from './screens/logs';
import { LogStreams } from './screens/log-streams';
import { Overview } from './screens/overview';
import { UserJobs } from './screens/user-jobs';
import { Users } from './screens/users';

interface Screen {
  path: string;
  label: string;
  /** Shown when the token carries any of these. */
  needs: string[];
  render: (route: string[]) => ComponentChildren;
}

export const SCREENS: Screen[] = [
  { path: 'overview', label: 'Overview', needs: ['read:stats', 'read:connections'], render: () => <Overview /> },
  { path: 'users', label: 'Find a login', needs: ['read:users', 'read:logs'], render: (r) => <Users route={r} /> },
  { path: 'fraud', label: 'Fraud guard', needs: ['read:connections', 'read:sms_fraud_blocks'], render: () => <FraudGuard /> },
  { path: 'connections', label: 'Connections', needs: ['read:connections'], render: (r) => <Connections route={r} /> },
  { path: 'applications', label: 'Applications', needs: ['read:clients'], render: (r) => <Applications route={r} /> },
  { path: 'apis', label: 'APIs and roles', needs: ['read:resource_servers', 'read:roles'], render: (r) => <Apis route={r} /> },
  { path: 'keys', label: 'Signing keys', needs: ['read:signing_keys'], render: () => <Keys /> },
  { path: 'log-streams', label: 'Log streams', needs: ['read:log_streams'], render: () => <LogStreams /> },
  { path: 'logs', label: 'Logs', needs: ['read:logs'], render: () => <Logs /> },
  { path: 'branding', label: 'Branding', needs: ['read:branding'], render: () => <Branding /> },
  { path: 'jobs', label: 'Import and export users', needs: ['create:users', 'read:users'], render: (r) => <UserJobs route={r} /> },
];

export function App({ context, signOut }: { context: ConsoleContext; signOut: () => void }) {
  const [first, ...rest] = useRoute();
  const allowed = SCREENS.filter((s) => s.needs.some((scope) => context.operator.scopes.has(scope)));
  const screen = allowed.find((s) => s.path === first) ?? allowed[0]!;
  const main = useRef<HTMLElement>(null);
  const firstScreen = useRef(true);
  // Another screen: move focus to its content, so keyboard and screen-reader users land on it
  // (not on the first one: a page just loaded starts at its top, the skip link first).
  useEffect(() => {
    document.title = `${screen.label} · smsauth console`;
    if (firstScreen.current) firstScreen.current = false;
    else main.current?.focus();
  }, [screen.path]);
  return (
    <Console.Provider value={context}>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">smsauth console</span>
        <span class="who">
          Signed in as <strong>{context.operator.name}</strong>{' '}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <nav aria-label="Console">
        <ul>
          {allowed.map((s) => (
            <li key={s.path}>
              <a href={href(s.path)} aria-current={s.path === screen.path ? 'page' : undefined}>
                {s.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {screen.render(rest)}
      </main>
    </Console.Provider>
  );
}
