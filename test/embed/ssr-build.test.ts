// No DOM in this file on purpose: server-side rendering, and the build as a package.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { DIST, OnboardingEmbed, type OnboardingEmbedError, type OnboardingEmbedProps } from './embed.ts';

const props: OnboardingEmbedProps = {
  oAuthClientId: 'client-abc',
  host: 'https://sched.example',
  theme: 'dark',
  authorization: { redirectUri: 'https://site.example/cb', scope: ['PROFILE_READ'], state: 'xyz' },
  onAuthorizationAllowed: () => {},
};

test('there is no DOM here', (t) => {
  t.is(typeof (globalThis as { window?: unknown }).window, 'undefined');
  t.is(typeof (globalThis as { document?: unknown }).document, 'undefined');
});

test('renderToString renders the default trigger (themed) and no dialog', (t) => {
  const html = renderToString(createElement(OnboardingEmbed, props));
  t.regex(html, /<button[^>]*class="sched-oe-trigger sched-oe-theme-dark"/);
  t.regex(html, /data-theme="dark"/);
  t.regex(html, /Continue with .*Scheduling/);
  t.regex(html, /<style>/);
  t.notRegex(html, /role="dialog"|<iframe/);
});

test('renderToString with a custom trigger renders it', (t) => {
  const html = renderToString(
    createElement(OnboardingEmbed, {
      ...props,
      trigger: createElement('a', { href: '#go' }, 'Book with us'),
    }),
  );
  t.regex(html, /<a href="#go">Book with us<\/a>/);
  t.notRegex(html, /sched-oe-trigger"/);
});

test('renderToString with invalid props renders nothing and calls nothing on the server', (t) => {
  const errors: OnboardingEmbedError[] = [];
  const html = renderToString(
    createElement(OnboardingEmbed, {
      ...props,
      oAuthClientId: '',
      onError: (error) => errors.push(error),
    }),
  );
  t.is(html, '');
  t.deepEqual(errors, [], 'onError runs in an effect, in the browser');
});

test('the CommonJS build loads and exports the same API', (t) => {
  const require = createRequire(import.meta.url);
  const cjs = require(fileURLToPath(new URL('index.cjs', DIST))) as Record<string, unknown>;
  t.is(typeof cjs.OnboardingEmbed, 'function');
  t.is(typeof cjs.buildOnboardingUrl, 'function');
  const html = renderToString(createElement(cjs.OnboardingEmbed as typeof OnboardingEmbed, props));
  t.regex(html, /Continue with/);
});

test('the builds leave React to the site (peer dependency) and carry "use client"', (t) => {
  for (const file of ['index.js', 'index.cjs']) {
    const code = readFileSync(new URL(file, DIST), 'utf8');
    t.true(code.startsWith("'use client';"), file);
    t.notRegex(
      code,
      /react\.production|react-dom\.development|__CLIENT_INTERNALS|ReactSharedInternals/,
      file,
    );
    t.regex(code, file === 'index.js' ? /from "react"/ : /require\("react"\)/, file);
  }
});

test('type declarations are built for both formats', (t) => {
  for (const file of ['index.d.ts', 'index.d.cts']) {
    const types = readFileSync(new URL(file, DIST), 'utf8');
    t.regex(types, /interface OnboardingEmbedProps/, file);
    t.regex(types, /declare function OnboardingEmbed/, file);
  }
  const pkg = JSON.parse(readFileSync(new URL('../package.json', DIST), 'utf8'));
  t.is(pkg.exports['.'].import.types, './dist/index.d.ts');
  t.is(pkg.exports['.'].require.default, './dist/index.cjs');
  t.deepEqual(Object.keys(pkg.peerDependencies).sort(), ['react', 'react-dom']);
});
