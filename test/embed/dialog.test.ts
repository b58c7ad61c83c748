// ./dom.ts must be the first import: it registers the browser globals React DOM looks for at load.
import { closeWindow, finishIframeLoads } from './dom.ts';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import test from 'ava';
import { createElement, StrictMode } from 'react';
import {
  callbackProps,
  defaultTrigger,
  embedElement,
  frame,
  openDialog,
  post,
  queryDialog,
  recorder,
  sameElement,
  renderEmbed,
} from './fixture.ts';

test.afterEach.always(() => cleanup());
test.after.always(() => closeWindow());

function active(): Element | null {
  return document.activeElement;
}

function closeButton(): HTMLElement {
  return screen.getByRole('button', { name: 'Close' });
}

test.serial('the dialog is a labelled modal dialog with a titled iframe', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  t.true(queryDialog() === null, 'closed until the trigger is clicked');
  const dialog = openDialog();
  t.is(dialog.getAttribute('aria-modal'), 'true');
  const labelId = dialog.getAttribute('aria-labelledby') ?? '';
  t.is(document.getElementById(labelId)?.textContent, 'Continue with Scheduling');
  sameElement(t, screen.getByRole('dialog', { name: 'Continue with Scheduling' }), dialog);
  t.is(frame().title, 'Sign in to Scheduling and authorize access');
  t.true(dialog.contains(frame()));
  t.is(defaultTrigger().getAttribute('aria-haspopup'), 'dialog');
});

test.serial('focus moves into the dialog when it opens', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  const dialog = openDialog();
  t.true(dialog.contains(active()));
  sameElement(t, active(), closeButton());
});

test.serial('Escape calls onClose, closes the dialog and returns focus to the trigger', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  fireEvent.keyDown(active() ?? document.body, { key: 'Escape' });
  t.true(queryDialog() === null);
  t.is(rec.closed, 1);
  sameElement(t, active(), defaultTrigger());
});

test.serial('the close button calls onClose, closes the dialog and returns focus', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  fireEvent.click(closeButton());
  t.true(queryDialog() === null);
  t.is(rec.closed, 1);
  sameElement(t, active(), defaultTrigger());
});

test.serial('the dialog can be opened again after closing', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  fireEvent.click(closeButton());
  openDialog();
  t.truthy(queryDialog());
  fireEvent.keyDown(document.body, { key: 'Escape' });
  t.is(rec.closed, 2);
});

test.serial('page scroll is locked while open and restored after', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  document.body.style.overflow = 'auto';
  openDialog();
  t.is(document.body.style.overflow, 'hidden');
  fireEvent.click(closeButton());
  t.is(document.body.style.overflow, 'auto');
  document.body.style.overflow = '';
});

test.serial(
  'focus trap: Shift+Tab on the first element wraps to the iframe, Tab on the iframe wraps back',
  (t) => {
    const rec = recorder();
    renderEmbed(callbackProps(rec));
    openDialog();
    sameElement(t, active(), closeButton());
    fireEvent.keyDown(closeButton(), { key: 'Tab', shiftKey: true });
    sameElement(t, active(), frame());
    fireEvent.keyDown(frame(), { key: 'Tab' });
    sameElement(t, active(), closeButton());
  },
);

test.serial('focus trap: Tab leaving the cross-origin frame lands on a guard that sends focus round', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  const dialog = openDialog();
  const guards = Array.from(document.querySelectorAll<HTMLElement>('[data-sched-oe-guard]'));
  t.is(guards.length, 2);
  const [before, after] = guards as [HTMLElement, HTMLElement];
  t.true(Boolean(before.compareDocumentPosition(dialog) & Node.DOCUMENT_POSITION_FOLLOWING));
  t.true(Boolean(after.compareDocumentPosition(dialog) & Node.DOCUMENT_POSITION_PRECEDING));
  after.focus();
  sameElement(t, active(), closeButton(), 'past the end -> first element');
  before.focus();
  sameElement(t, active(), frame(), 'before the start -> last element (the iframe)');
});

test.serial('focus trap: focus that escapes to the page is brought back', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  const outside = document.createElement('button');
  outside.textContent = 'page button';
  document.body.prepend(outside);
  try {
    const dialog = openDialog();
    outside.focus();
    t.true(dialog.contains(active()));
  } finally {
    outside.remove();
  }
});

test.serial('a spinner shows until the iframe has loaded', async (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  t.is(screen.getByRole('status').textContent, 'Loading…');
  t.true(frame().classList.contains('sched-oe-loading'));
  finishIframeLoads();
  await waitFor(() => {
    if (screen.queryByRole('status')) throw new Error('spinner still shown');
  });
  t.false(frame().classList.contains('sched-oe-loading'));
});

test.serial('onboarding:ready from the frame also ends the spinner', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  t.truthy(screen.queryByRole('status'));
  post(frame().contentWindow, { type: 'onboarding:ready' });
  t.true(screen.queryByRole('status') === null);
});

test.serial(
  'theme: light and dark classes and data-theme on the trigger, the overlay and the dialog',
  (t) => {
    for (const theme of ['light', 'dark'] as const) {
      const rec = recorder();
      renderEmbed(callbackProps(rec, { theme }));
      const trigger = defaultTrigger();
      t.true(trigger.classList.contains(`sched-oe-theme-${theme}`), theme);
      t.is(trigger.dataset.theme, theme);
      const dialog = openDialog();
      t.true(dialog.classList.contains(`sched-oe-theme-${theme}`));
      t.is(dialog.dataset.theme, theme);
      t.is(dialog.parentElement?.dataset.theme, theme, 'overlay');
      t.is(new URL(frame().src).searchParams.get('theme'), theme);
      t.is(frame().style.colorScheme, theme);
      cleanup();
    }
  },
);

test.serial('theme defaults to light', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  t.is(defaultTrigger().dataset.theme, 'light');
});

test.serial('styles are self-contained: scoped <style> elements, no stylesheet links', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  t.is(document.querySelectorAll('link[rel="stylesheet"]').length, 0);
  const css = Array.from(document.querySelectorAll('style'))
    .map((s) => s.textContent ?? '')
    .join('\n');
  t.regex(css, /\.sched-oe-trigger/);
  t.regex(css, /\.sched-oe-dialog/);
  const selectors = css.match(/^[^@{}\n][^{}\n]*\{/gm) ?? [];
  t.true(selectors.length > 10);
  for (const selector of selectors) {
    if (/^\s*(from|to)\b/.test(selector)) continue; // keyframes steps
    for (const part of selector.replace('{', '').split(',')) t.regex(part, /\.sched-oe-/, `scoped: ${part}`);
  }
});

test.serial('a custom trigger replaces the default button and opens the dialog', (t) => {
  const rec = recorder();
  renderEmbed(
    callbackProps(rec, {
      trigger: createElement('a', { href: '#signup', className: 'site-link' }, 'Sign up with our scheduler'),
    }),
  );
  t.true(screen.queryByRole('button', { name: 'Continue with Scheduling' }) === null);
  const link = screen.getByRole('link', { name: 'Sign up with our scheduler' });
  const click = new MouseEvent('click', { bubbles: true, cancelable: true });
  act(() => {
    link.dispatchEvent(click);
  });
  t.true(click.defaultPrevented, "the link's own navigation is replaced by the dialog");
  t.truthy(queryDialog());
  fireEvent.keyDown(document.body, { key: 'Escape' });
  sameElement(t, active(), link, 'focus returns to the custom trigger');
});

test.serial('a custom trigger made of a component with its own button works too', (t) => {
  const rec = recorder();
  function SiteButton() {
    return createElement(
      'div',
      { className: 'card' },
      createElement('button', { type: 'button' }, 'Connect calendar'),
    );
  }
  renderEmbed(callbackProps(rec, { trigger: createElement(SiteButton) }));
  fireEvent.click(screen.getByRole('button', { name: 'Connect calendar' }));
  t.truthy(queryDialog());
});

test.serial('a custom trigger whose own handler calls preventDefault does not open', (t) => {
  const rec = recorder();
  renderEmbed(
    callbackProps(rec, {
      trigger: createElement(
        'button',
        { type: 'button', onClick: (event: { preventDefault(): void }) => event.preventDefault() },
        'Not yet',
      ),
    }),
  );
  fireEvent.click(screen.getByRole('button', { name: 'Not yet' }));
  t.true(queryDialog() === null);
});

test.serial('clicks inside the dialog do not reach handlers around the component', (t) => {
  const rec = recorder();
  let outerClicks = 0;
  render(
    createElement(
      'div',
      {
        onClick: () => {
          outerClicks += 1;
        },
      },
      embedElement(callbackProps(rec)),
    ),
  );
  fireEvent.click(defaultTrigger());
  const before = outerClicks;
  fireEvent.click(screen.getByRole('dialog'));
  t.is(outerClicks, before);
});

test.serial(
  'a frame that loads but never posts onboarding:ready: UNKNOWN error and the popup offer',
  async (t) => {
    const rec = recorder();
    renderEmbed(callbackProps(rec));
    openDialog();
    finishIframeLoads(); // loads a page without the protocol script, like a browser error page
    await waitFor(() => screen.getByRole('button', { name: 'Continue in a new window' }), {
      timeout: 15_000,
    });
    t.regex(screen.getByRole('dialog').textContent ?? '', /could not be shown inside this dialog/);
    t.deepEqual(
      rec.errors.map((e) => e.code),
      ['UNKNOWN'],
    );
    t.regex(rec.errors[0]?.message ?? '', /onboarding:ready/);
    t.true(screen.queryByTitle('Sign in to Scheduling and authorize access') === null);
  },
);

test.serial(
  'a later page in the frame that never posts onboarding:ready (an expired step the server refuses to frame): UNKNOWN and the popup offer',
  async (t) => {
    const rec = recorder();
    renderEmbed(callbackProps(rec));
    openDialog();
    // The first page loads (the spinner goes on its load: no ready has been posted yet), then answers.
    finishIframeLoads();
    await waitFor(() => {
      if (screen.queryByRole('status')) throw new Error('spinner still shown');
    });
    post(frame().contentWindow, { type: 'onboarding:ready' });
    // A second page whose ready comes before its load event; a third whose ready comes after.
    post(frame().contentWindow, { type: 'onboarding:ready' });
    act(() => {
      fireEvent.load(frame());
    });
    act(() => {
      fireEvent.load(frame());
    });
    post(frame().contentWindow, { type: 'onboarding:ready' });
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    t.deepEqual(rec.errors, [], 'pages that answered raise nothing');
    t.truthy(screen.queryByTitle('Sign in to Scheduling and authorize access'));
    // A fourth page that never answers: a browser error page in place of the flow.
    act(() => {
      fireEvent.load(frame());
    });
    await waitFor(() => screen.getByRole('button', { name: 'Continue in a new window' }), {
      timeout: 15_000,
    });
    t.deepEqual(
      rec.errors.map((e) => e.code),
      ['UNKNOWN'],
    );
  },
);

test.serial('under StrictMode the dialog works and callbacks run once', (t) => {
  const rec = recorder();
  render(createElement(StrictMode, null, embedElement(callbackProps(rec))));
  openDialog();
  sameElement(t, active(), closeButton());
  post(frame().contentWindow, { type: 'onboarding:error', code: 'SIGNUP_FAILED', message: 'taken' });
  fireEvent.keyDown(document.body, { key: 'Escape' });
  t.is(rec.errors.length, 1);
  t.is(rec.closed, 1);
  t.true(queryDialog() === null);
});
