// The example page: the same component in callback mode, in redirect mode and with a custom trigger.
// Plain ES modules, no build step: React and the component come through the page's import map.
import { OnboardingEmbed } from '@sched/onboarding-embed';
import { createElement as h, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { exchangeCode, newAuthorizationRequest, rememberRequest } from './pkce.js';

const serverConfig = JSON.parse(document.getElementById('example-config').textContent);
const SETTINGS_KEY = 'acme:settings';

function loadSettings() {
  const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? '{}');
  return {
    host: saved.host ?? serverConfig.host,
    clientId: serverConfig.clientId || saved.clientId || '',
    scope: saved.scope ?? serverConfig.scope.join(' '),
    theme: saved.theme ?? 'light',
    email: saved.email ?? '',
  };
}

function Field({ label, children }) {
  return h('label', { className: 'field' }, h('span', null, label), children);
}

function Settings({ settings, onChange }) {
  const input = (key, props = {}) =>
    h('input', {
      value: settings[key],
      onChange: (e) => onChange({ ...settings, [key]: e.target.value }),
      ...props,
    });
  return h(
    'form',
    { className: 'card settings', onSubmit: (e) => e.preventDefault() },
    h('h2', null, 'Settings'),
    h(Field, { label: 'Scheduling host (APP_URL)' }, input('host', { name: 'host' })),
    h(
      Field,
      { label: 'OAuth client id' },
      input('clientId', { name: 'clientId', placeholder: 'from your client' }),
    ),
    h(Field, { label: 'Scopes (space separated)' }, input('scope', { name: 'scope' })),
    h(Field, { label: 'Prefill e-mail (optional)' }, input('email', { name: 'email', type: 'email' })),
    h(
      Field,
      { label: 'Theme' },
      h(
        'select',
        {
          name: 'theme',
          value: settings.theme,
          onChange: (e) => onChange({ ...settings, theme: e.target.value }),
        },
        h('option', { value: 'light' }, 'light'),
        h('option', { value: 'dark' }, 'dark'),
      ),
    ),
    h(
      'p',
      { className: 'hint' },
      'Redirect URI (register it on the client): ',
      h('code', null, serverConfig.redirectUri),
    ),
  );
}

/**
 * One <OnboardingEmbed />. A fresh state and PKCE pair for every attempt: codes are single-use, and
 * the state ties the response to this attempt.
 */
function Demo({ mode, settings, log, custom }) {
  const [request, setRequest] = useState(null);
  const [round, setRound] = useState(0);
  const next = useCallback(() => setRound((r) => r + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` is the "start a new attempt" signal
  useEffect(() => {
    let live = true;
    newAuthorizationRequest().then((r) => {
      if (!live) return;
      if (mode === 'redirect') rememberRequest(r); // the callback page needs the verifier
      setRequest(r);
    });
    return () => {
      live = false;
    };
  }, [mode, round]);

  if (!request) return h('p', null, 'Preparing a PKCE verifier…');
  const props = {
    oAuthClientId: settings.clientId,
    host: settings.host,
    theme: settings.theme,
    user: settings.email ? { email: settings.email } : undefined,
    authorization: {
      redirectUri: serverConfig.redirectUri,
      scope: settings.scope.split(/\s+/).filter(Boolean),
      state: request.state,
      codeChallenge: request.challenge,
    },
    onError: (error) => log(mode, `onError ${error.code}: ${error.message}`),
    onClose: () => log(mode, 'onClose: dialog dismissed'),
  };
  if (mode === 'callback') {
    props.onAuthorizationAllowed = async ({ code }) => {
      log(mode, `onAuthorizationAllowed: code ${code.slice(0, 8)}… (exchanging with the PKCE verifier)`);
      const result = await exchangeCode(code, request.verifier, settings.clientId);
      log(mode, `exchange: ${JSON.stringify(result, null, 2)}`);
      next();
    };
    props.onAuthorizationDenied = () => {
      log(mode, 'onAuthorizationDenied: the user clicked Deny');
      next();
    };
  }
  if (custom) {
    props.trigger = h('button', { type: 'button', className: 'site-button' }, 'Connect your calendar');
  }
  return h(OnboardingEmbed, props);
}

function Log({ lines, testId }) {
  return h(
    'pre',
    { className: 'log', 'data-testid': testId, 'aria-live': 'polite' },
    lines.join('\n\n') || '—',
  );
}

function App() {
  const [settings, setSettings] = useState(loadSettings);
  const [logs, setLogs] = useState({ callback: [], redirect: [], custom: [] });
  const log = useCallback((mode, line) => setLogs((l) => ({ ...l, [mode]: [...l[mode], line] })), []);
  useEffect(() => localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings)), [settings]);
  const page = settings.theme === 'dark' ? 'page-dark' : 'page-light';
  useEffect(() => {
    document.body.className = page;
  }, [page]);

  return h(
    'div',
    { className: 'layout' },
    h(Settings, { settings, onChange: setSettings }),
    h(
      'section',
      { className: 'card', 'aria-labelledby': 'callback-title' },
      h('h2', { id: 'callback-title' }, 'Callback mode'),
      h(
        'p',
        null,
        'onAuthorizationAllowed is given: the code arrives in the callback, the dialog closes and this page stays. ',
        'The page then sends the code and its PKCE verifier to its own back end (POST /exchange).',
      ),
      h(Demo, { mode: 'callback', settings, log: (_, line) => log('callback', line) }),
      h(Log, { lines: logs.callback, testId: 'callback-log' }),
    ),
    h(
      'section',
      { className: 'card', 'aria-labelledby': 'redirect-title' },
      h('h2', { id: 'redirect-title' }, 'Redirect mode'),
      h(
        'p',
        null,
        'No onAuthorizationAllowed: after Allow the browser goes to the redirect URI with ?code=…&state=…, ',
        'and the callback page does the exchange. Deny goes there with ?error=access_denied.',
      ),
      h(Demo, { mode: 'redirect', settings, log: (_, line) => log('redirect', line) }),
      h(Log, { lines: logs.redirect, testId: 'redirect-log' }),
    ),
    h(
      'section',
      { className: 'card', 'aria-labelledby': 'custom-title' },
      h('h2', { id: 'custom-title' }, 'Your own trigger'),
      h(
        'p',
        null,
        'The trigger prop takes any element; clicking it opens the same dialog (callback mode here).',
      ),
      h(Demo, { mode: 'callback', custom: true, settings, log: (_, line) => log('custom', line) }),
      h(Log, { lines: logs.custom, testId: 'custom-log' }),
    ),
  );
}

createRoot(document.getElementById('app')).render(h(App));
