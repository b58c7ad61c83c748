// ./dom.ts must be the first import: it registers the browser globals React DOM looks for at load.
import { closeWindow, HOST, SITE_ORIGIN } from './dom.ts';
import { cleanup, render } from '@testing-library/react';
import test from 'ava';
import { createElement, StrictMode } from 'react';
import { buildOnboardingUrl, DEFAULT_HOST, ERROR_CODES, type OnboardingEmbedProps } from './embed.ts';
import {
  CHALLENGE,
  callbackProps,
  defaultTrigger,
  embedElement,
  frame,
  openDialog,
  post,
  queryDialog,
  REDIRECT_URI,
  recorder,
  renderEmbed,
  STATE,
} from './fixture.ts';

test.afterEach.always(() => cleanup());
test.after.always(() => closeWindow());

function renderInvalid(mutate: (props: Record<string, unknown>) => void) {
  const rec = recorder();
  const props = callbackProps(rec) as unknown as Record<string, unknown>;
  props.authorization = { ...(props.authorization as object) };
  mutate(props);
  const { container } = renderEmbed(props as unknown as OnboardingEmbedProps);
  return { rec, container };
}

test.serial('the error codes are those of the README', (t) => {
  t.deepEqual(
    [...ERROR_CODES],
    [
      'INVALID_PROPS',
      'SIGNUP_FAILED',
      'ONBOARDING_FAILED',
      'AUTHORIZATION_FAILED',
      'STATE_MISMATCH',
      'UNKNOWN',
    ],
  );
});

test.serial('valid props render the default trigger and report nothing', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  t.truthy(defaultTrigger());
  t.deepEqual(rec.errors, []);
});

test.serial('missing oAuthClientId and authorization: INVALID_PROPS naming both, nothing rendered', (t) => {
  const { rec, container } = renderInvalid((props) => {
    delete props.oAuthClientId;
    delete props.authorization;
  });
  t.is(container.innerHTML, '');
  t.is(rec.errors.length, 1);
  const [error] = rec.errors;
  t.is(error?.code, 'INVALID_PROPS');
  t.regex(error?.message ?? '', /oAuthClientId/);
  t.regex(error?.message ?? '', /authorization \(required/);
});

test.serial('each missing or malformed authorization field is named', (t) => {
  const { rec, container } = renderInvalid((props) => {
    props.authorization = { redirectUri: '/relative/callback', scope: 'PROFILE_READ', state: '' };
  });
  t.is(container.innerHTML, '');
  const message = rec.errors[0]?.message ?? '';
  t.regex(message, /authorization\.redirectUri/);
  t.regex(message, /authorization\.scope/);
  t.regex(message, /authorization\.state/);
  t.notRegex(message, /oAuthClientId/);
});

test.serial('an empty scope array, a scope with a space and a bad challenge are rejected', (t) => {
  for (const [authorization, name] of [
    [{ redirectUri: REDIRECT_URI, scope: [], state: STATE }, 'authorization.scope'],
    [
      { redirectUri: REDIRECT_URI, scope: ['PROFILE_READ EVENT_TYPE_READ'], state: STATE },
      'authorization.scope',
    ],
    [
      { redirectUri: REDIRECT_URI, scope: ['PROFILE_READ'], state: STATE, codeChallenge: 'plain' },
      'codeChallenge',
    ],
  ] as const) {
    const { rec, container } = renderInvalid((props) => {
      props.authorization = authorization;
    });
    t.is(container.innerHTML, '', name);
    t.is(rec.errors[0]?.code, 'INVALID_PROPS');
    t.true(rec.errors[0]?.message.includes(name), `${name} in ${rec.errors[0]?.message}`);
    cleanup();
  }
});

test.serial('bad host, theme, user and callback types are named', (t) => {
  const { rec, container } = renderInvalid((props) => {
    props.host = 'sched.example';
    props.theme = 'blue';
    props.user = { email: 42 };
    props.onClose = 'close';
  });
  t.is(container.innerHTML, '');
  const message = rec.errors[0]?.message ?? '';
  for (const name of ['host', 'theme', 'user.email', 'onClose']) t.true(message.includes(name), name);
});

test.serial('INVALID_PROPS is reported once per problem, not on every render', (t) => {
  const rec = recorder();
  const props = { ...callbackProps(rec), oAuthClientId: '' };
  const { rerender } = renderEmbed(props);
  rerender(embedElement({ ...props })); // same problem, new props object
  t.is(rec.errors.length, 1);
});

test.serial('props that become valid render the trigger', (t) => {
  const rec = recorder();
  const { rerender, container } = renderEmbed({ ...callbackProps(rec), oAuthClientId: '' });
  t.is(container.innerHTML, '');
  rerender(embedElement(callbackProps(rec)));
  t.truthy(defaultTrigger());
});

test.serial(
  'props that turn invalid while the dialog is open: the flow goes on with those it opened with',
  (t) => {
    const rec = recorder();
    const props = callbackProps(rec);
    const { rerender, container } = renderEmbed(props);
    openDialog();
    const running = frame().contentWindow;
    // The site re-renders mid-flow with a state it has not computed yet.
    rerender(embedElement(callbackProps(rec, { authorization: { ...props.authorization, state: '' } })));
    t.is(rec.errors.length, 1);
    t.is(rec.errors[0]?.code, 'INVALID_PROPS');
    t.true(queryDialog() !== null, 'the dialog stays open');
    t.true(frame().contentWindow === running, 'the same frame: the flow was not restarted');
    t.is(container.querySelector('.sched-oe-trigger'), null, 'no trigger for invalid props');
    t.is(rec.closed, 0);
    post(frame().contentWindow, { type: 'authorization:allowed', code: 'code-1', state: STATE });
    t.deepEqual(rec.allowed, [{ code: 'code-1', state: STATE }]);
    t.true(queryDialog() === null);
    t.is(container.innerHTML, '', 'closed: invalid props render nothing');
  },
);

test.serial('the iframe URL carries the protocol parameters', (t) => {
  const rec = recorder();
  renderEmbed(
    callbackProps(rec, {
      theme: 'dark',
      user: { email: 'ada@example.com', name: 'Ada Lovelace', username: 'ada' },
      authorization: {
        redirectUri: REDIRECT_URI,
        scope: ['PROFILE_READ', 'EVENT_TYPE_READ'],
        state: STATE,
        codeChallenge: CHALLENGE,
      },
    }),
  );
  openDialog();
  const src = frame().getAttribute('src') ?? '';
  t.true(src.startsWith(`${HOST}/auth/embed/onboarding?`), src);
  t.true(src.includes('scope=PROFILE_READ%20EVENT_TYPE_READ'), 'scope is space separated, encoded as %20');
  const query = new URL(src).searchParams;
  t.deepEqual(Object.fromEntries(query), {
    client_id: 'client-abc',
    redirect_uri: REDIRECT_URI,
    scope: 'PROFILE_READ EVENT_TYPE_READ',
    state: STATE,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    theme: 'dark',
    prefill_email: 'ada@example.com',
    prefill_name: 'Ada Lovelace',
    prefill_username: 'ada',
    parent_origin: SITE_ORIGIN,
  });
});

test.serial('without codeChallenge and user, those parameters are left out; theme defaults to light', (t) => {
  const url = new URL(
    buildOnboardingUrl({
      host: `${HOST}/`,
      clientId: 'c',
      redirectUri: REDIRECT_URI,
      scope: ['PROFILE_READ'],
      state: 's',
      theme: 'light',
      parentOrigin: SITE_ORIGIN,
      mode: 'iframe',
    }),
  );
  t.is(url.origin + url.pathname, `${HOST}/auth/embed/onboarding`, 'no double slash after a trailing one');
  t.deepEqual(
    [...url.searchParams.keys()],
    ['client_id', 'redirect_uri', 'scope', 'state', 'theme', 'parent_origin'],
  );
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  t.is(new URL(frame().src).searchParams.get('theme'), 'light');
});

test.serial('host defaults to the local server and may carry a path prefix', (t) => {
  const rec = recorder();
  const props = callbackProps(rec);
  delete props.host;
  renderEmbed(props);
  openDialog();
  t.true(frame().src.startsWith(`${DEFAULT_HOST}/auth/embed/onboarding?`));
  cleanup();
  renderEmbed(callbackProps(rec, { host: `${HOST}/scheduling` }));
  openDialog();
  t.true(frame().src.startsWith(`${HOST}/scheduling/auth/embed/onboarding?`));
});

test.serial('the popup URL is the iframe URL plus mode=popup', (t) => {
  const base = {
    host: HOST,
    clientId: 'c',
    redirectUri: REDIRECT_URI,
    scope: ['PROFILE_READ'],
    state: 's',
    theme: 'light' as const,
    parentOrigin: SITE_ORIGIN,
  };
  t.is(
    buildOnboardingUrl({ ...base, mode: 'popup' }),
    `${buildOnboardingUrl({ ...base, mode: 'iframe' })}&mode=popup`,
  );
});

test.serial('under StrictMode INVALID_PROPS is still reported once', (t) => {
  const rec = recorder();
  render(createElement(StrictMode, null, embedElement({ ...callbackProps(rec), oAuthClientId: '' })));
  t.is(rec.errors.length, 1);
});
