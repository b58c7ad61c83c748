// ./dom.ts must be the first import: it registers the browser globals React DOM looks for at load.
import { closeWindow, HOST, happyWindow } from './dom.ts';
import { cleanup, screen } from '@testing-library/react';
import test from 'ava';
import { parseMessage } from './embed.ts';
import {
  callbackProps,
  captureNavigation,
  frame,
  openDialog,
  post,
  queryDialog,
  REDIRECT_URI,
  recorder,
  redirectProps,
  renderEmbed,
  STATE,
} from './fixture.ts';

test.afterEach.always(() => cleanup());
test.after.always(() => closeWindow());

const allowed = { type: 'authorization:allowed', code: 'code-123', state: STATE };

test.serial(
  'callback mode: allowed calls onAuthorizationAllowed with the code and closes, no navigation',
  (t) => {
    const nav = captureNavigation();
    try {
      const rec = recorder();
      renderEmbed(callbackProps(rec));
      openDialog();
      post(frame().contentWindow, allowed);
      t.deepEqual(rec.allowed, [{ code: 'code-123', state: STATE }]);
      t.true(queryDialog() === null);
      t.deepEqual(nav.urls, []);
      t.is(rec.closed, 0, 'finishing is not a dismissal');
      t.deepEqual(rec.errors, []);
    } finally {
      nav.restore();
    }
  },
);

test.serial('callback mode passes the issuer along when the frame sends it', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  post(frame().contentWindow, { ...allowed, iss: HOST });
  t.deepEqual(rec.allowed, [{ code: 'code-123', state: STATE, iss: HOST }]);
});

test.serial('a message from another origin is ignored', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  const source = frame().contentWindow;
  post(source, allowed, 'https://evil.example');
  post(source, allowed, 'https://sched.example:8443');
  post(source, allowed, 'http://sched.example');
  post(source, allowed, 'null');
  t.deepEqual(rec.allowed, []);
  t.deepEqual(rec.errors, []);
  t.truthy(queryDialog());
});

test.serial('a message from another window of the right origin is ignored', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  // Another iframe of the same host on the page (say, a second widget), the page itself, no source.
  const other = document.createElement('iframe');
  other.src = `${HOST}/auth/embed/onboarding?client_id=other`;
  document.body.append(other);
  try {
    t.truthy(other.contentWindow);
    post(other.contentWindow, allowed);
    post(happyWindow, allowed);
    post(null, allowed);
    t.deepEqual(rec.allowed, []);
    t.truthy(queryDialog());
    post(frame().contentWindow, allowed);
    t.is(rec.allowed.length, 1, 'the same message from the iframe itself is accepted');
  } finally {
    other.remove();
  }
});

test.serial('state mismatch: STATE_MISMATCH and nothing else', (t) => {
  const nav = captureNavigation();
  try {
    const rec = recorder();
    renderEmbed(callbackProps(rec));
    openDialog();
    post(frame().contentWindow, { ...allowed, state: 'forged' });
    post(frame().contentWindow, { type: 'authorization:allowed', code: 'code-123' });
    post(frame().contentWindow, { type: 'authorization:denied', state: 'forged' });
    t.deepEqual(
      rec.errors.map((e) => e.code),
      ['STATE_MISMATCH', 'STATE_MISMATCH', 'STATE_MISMATCH'],
    );
    t.deepEqual(rec.allowed, []);
    t.is(rec.denied, 0);
    t.is(rec.closed, 0);
    t.deepEqual(nav.urls, []);
    t.truthy(queryDialog(), 'the dialog stays open');
  } finally {
    nav.restore();
  }
});

test.serial('state mismatch in redirect mode does not navigate', (t) => {
  const nav = captureNavigation();
  try {
    const rec = recorder();
    renderEmbed(redirectProps(rec));
    openDialog();
    post(frame().contentWindow, { ...allowed, state: 'forged' });
    t.deepEqual(nav.urls, []);
    t.is(rec.errors[0]?.code, 'STATE_MISMATCH');
  } finally {
    nav.restore();
  }
});

test.serial('redirect mode: allowed navigates to redirectUri with code and state', (t) => {
  const nav = captureNavigation();
  try {
    const rec = recorder();
    renderEmbed(redirectProps(rec));
    openDialog();
    const source = frame().contentWindow;
    post(source, { ...allowed, iss: HOST });
    t.is(nav.urls.length, 1);
    const url = new URL(nav.urls[0] ?? '');
    t.is(url.origin + url.pathname, REDIRECT_URI);
    t.deepEqual(Object.fromEntries(url.searchParams), { code: 'code-123', state: STATE, iss: HOST });
    t.truthy(queryDialog(), 'the dialog stays (showing progress) while the page navigates');
    t.truthy(screen.getByRole('status'));
    post(source, allowed);
    t.is(nav.urls.length, 1, 'nothing after the final message counts');
  } finally {
    nav.restore();
  }
});

test.serial('redirect mode keeps the query the redirect URI already has', (t) => {
  const nav = captureNavigation();
  try {
    const rec = recorder();
    renderEmbed(
      redirectProps(rec, {
        authorization: { redirectUri: `${REDIRECT_URI}?from=embed`, scope: ['PROFILE_READ'], state: STATE },
      }),
    );
    openDialog();
    post(frame().contentWindow, allowed);
    t.deepEqual(Object.fromEntries(new URL(nav.urls[0] ?? '').searchParams), {
      from: 'embed',
      code: 'code-123',
      state: STATE,
    });
  } finally {
    nav.restore();
  }
});

test.serial('deny with onAuthorizationDenied: called, dialog closes, no navigation (either mode)', (t) => {
  const nav = captureNavigation();
  try {
    const rec = recorder();
    const props = redirectProps(rec, {
      onAuthorizationDenied: () => {
        rec.denied += 1;
      },
    });
    renderEmbed(props);
    openDialog();
    post(frame().contentWindow, { type: 'authorization:denied', state: STATE });
    t.is(rec.denied, 1);
    t.true(queryDialog() === null);
    t.deepEqual(nav.urls, []);
  } finally {
    nav.restore();
  }
});

test.serial('deny in redirect mode without onAuthorizationDenied: error=access_denied', (t) => {
  const nav = captureNavigation();
  try {
    const rec = recorder();
    renderEmbed(redirectProps(rec));
    openDialog();
    post(frame().contentWindow, { type: 'authorization:denied', state: STATE });
    t.deepEqual(nav.urls, [`${REDIRECT_URI}?error=access_denied&state=${STATE}`]);
  } finally {
    nav.restore();
  }
});

test.serial('deny in callback mode without onAuthorizationDenied: the dialog just closes', (t) => {
  const nav = captureNavigation();
  try {
    const rec = recorder();
    const props = callbackProps(rec);
    delete props.onAuthorizationDenied;
    renderEmbed(props);
    openDialog();
    post(frame().contentWindow, { type: 'authorization:denied', state: STATE });
    t.true(queryDialog() === null);
    t.deepEqual(nav.urls, []);
    t.deepEqual(rec.allowed, []);
  } finally {
    nav.restore();
  }
});

test.serial('allowed without a code: AUTHORIZATION_FAILED, dialog stays', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  post(frame().contentWindow, { type: 'authorization:allowed', state: STATE });
  t.deepEqual(
    rec.errors.map((e) => e.code),
    ['AUTHORIZATION_FAILED'],
  );
  t.truthy(queryDialog());
});

test.serial('onboarding:error is passed to onError; unknown codes become UNKNOWN', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  const source = frame().contentWindow;
  post(source, { type: 'onboarding:error', code: 'SIGNUP_FAILED', message: 'Email already registered' });
  post(source, { type: 'onboarding:error', code: 'STATE_MISMATCH', message: 'spoofed local code' });
  post(source, { type: 'onboarding:error', code: 'ONBOARDING_FAILED' });
  t.deepEqual(rec.errors, [
    { code: 'SIGNUP_FAILED', message: 'Email already registered' },
    { code: 'UNKNOWN', message: 'spoofed local code' },
    { code: 'ONBOARDING_FAILED', message: 'The onboarding flow reported an error.' },
  ]);
  t.truthy(queryDialog(), 'the frame shows the error; the dialog stays');
});

test.serial('onboarding:close from the frame closes the dialog and calls onClose', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  post(frame().contentWindow, { type: 'onboarding:close' });
  t.true(queryDialog() === null);
  t.is(rec.closed, 1);
});

test.serial('messages that are not ours are ignored', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  const source = frame().contentWindow;
  for (const data of ['authorization:allowed', null, 42, [allowed], { type: 'webpackOk' }, { code: 'x' }]) {
    post(source, data);
  }
  t.deepEqual(rec, { errors: [], allowed: [], denied: 0, closed: 0 });
  t.truthy(queryDialog());
});

test.serial('no listener while the dialog is closed', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  post(happyWindow, allowed);
  t.deepEqual(rec.allowed, []);
});

test.serial('parseMessage reads only protocol messages', (t) => {
  t.is(parseMessage('onboarding:ready'), null);
  t.is(parseMessage({ type: 'other' }), null);
  t.deepEqual(parseMessage({ type: 'onboarding:ready', extra: 1 }), { type: 'onboarding:ready' });
  t.deepEqual(parseMessage({ type: 'authorization:denied', state: 's' }), {
    type: 'authorization:denied',
    state: 's',
    iss: undefined,
  });
  const long = parseMessage({ type: 'onboarding:error', code: 'UNKNOWN', message: 'x'.repeat(2000) });
  t.is(long?.type === 'onboarding:error' ? long.message.length : 0, 500);
});
