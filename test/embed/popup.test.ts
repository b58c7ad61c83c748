// ./dom.ts must be the first import: it registers the browser globals React DOM looks for at load.
import { closeWindow, HOST, happyWindow } from './dom.ts';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import test from 'ava';
import {
  callbackProps,
  captureNavigation,
  frame,
  openDialog,
  post,
  queryDialog,
  REDIRECT_URI,
  recorder,
  sameElement,
  redirectProps,
  renderEmbed,
  STATE,
} from './fixture.ts';

/** Stands in for the WindowProxy window.open returns. */
class FakePopup {
  closed = false;
  closeCalls = 0;
  focusCalls = 0;
  close() {
    this.closeCalls += 1;
    this.closed = true;
  }
  focus() {
    this.focusCalls += 1;
  }
}

interface OpenCall {
  url: string;
  name: string;
  features: string;
}

/** Replaces window.open; `result` decides what it returns (a popup, or null as a blocker does). */
function stubOpen(result: () => FakePopup | null) {
  const calls: OpenCall[] = [];
  Object.defineProperty(happyWindow, 'open', {
    configurable: true,
    writable: true,
    value: (url: string, name: string, features: string) => {
      calls.push({ url, name, features });
      return result();
    },
  });
  return calls;
}

test.afterEach.always(() => {
  cleanup();
  delete (happyWindow as unknown as Record<string, unknown>).open;
});
test.after.always(() => closeWindow());

const allowed = { type: 'authorization:allowed', code: 'popup-code', state: STATE };

function continueButton() {
  return screen.getByRole('button', { name: 'Continue in a new window' });
}

/** Opens the dialog and has the iframe ask for the popup. Returns the iframe URL. */
function toPopupPanel(): string {
  openDialog();
  const src = frame().src;
  post(frame().contentWindow, { type: 'onboarding:needs-popup' });
  return src;
}

test.serial('onboarding:needs-popup replaces the iframe with a "Continue in a new window" step', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  frame().focus(); // the user is working inside the frame when it asks for the popup
  post(frame().contentWindow, { type: 'onboarding:needs-popup' });
  t.true(screen.queryByTitle('Sign in to Scheduling and authorize access') === null);
  sameElement(t, document.activeElement, continueButton(), 'focus goes to the action');
  t.truthy(queryDialog());
});

test.serial('the button opens a popup on the same URL with mode=popup; its messages are accepted', (t) => {
  const popup = new FakePopup();
  const calls = stubOpen(() => popup);
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  const iframeUrl = toPopupPanel();
  fireEvent.click(continueButton());
  t.is(calls.length, 1);
  t.is(calls[0]?.url, `${iframeUrl}&mode=popup`);
  t.is(calls[0]?.name, 'sched-onboarding');
  t.regex(calls[0]?.features ?? '', /popup=yes,width=\d+,height=\d+/);
  t.truthy(screen.getByText(/Finish in the Scheduling window/));
  post(popup, allowed);
  t.deepEqual(rec.allowed, [{ code: 'popup-code', state: STATE }]);
  t.is(popup.closeCalls, 1, 'the popup is closed when done');
  t.true(queryDialog() === null);
});

test.serial('popup messages get the same origin and state checks', (t) => {
  const popup = new FakePopup();
  stubOpen(() => popup);
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  toPopupPanel();
  fireEvent.click(continueButton());
  post(popup, allowed, 'https://evil.example');
  post(new FakePopup(), allowed);
  post(happyWindow, allowed);
  t.deepEqual(rec.allowed, []);
  post(popup, { ...allowed, state: 'forged' });
  t.deepEqual(
    rec.errors.map((e) => e.code),
    ['STATE_MISMATCH'],
  );
  t.deepEqual(rec.allowed, []);
  t.is(popup.closeCalls, 0);
  t.truthy(queryDialog());
});

test.serial('redirect mode through the popup navigates the page', (t) => {
  const nav = captureNavigation();
  try {
    const popup = new FakePopup();
    stubOpen(() => popup);
    const rec = recorder();
    renderEmbed(redirectProps(rec));
    toPopupPanel();
    fireEvent.click(continueButton());
    post(popup, { type: 'authorization:denied', state: STATE });
    t.deepEqual(nav.urls, [`${REDIRECT_URI}?error=access_denied&state=${STATE}`]);
    t.is(popup.closeCalls, 1);
  } finally {
    nav.restore();
  }
});

test.serial('needs-popup is only taken from our iframe', (t) => {
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  openDialog();
  post(frame().contentWindow, { type: 'onboarding:needs-popup' }, 'https://evil.example');
  post(happyWindow, { type: 'onboarding:needs-popup' });
  t.truthy(frame(), 'still the iframe');
  t.true(screen.queryByRole('button', { name: 'Continue in a new window' }) === null);
});

test.serial('a blocked popup says so and lets the user try again', (t) => {
  let block = true;
  const popup = new FakePopup();
  const calls = stubOpen(() => (block ? null : popup));
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  toPopupPanel();
  fireEvent.click(continueButton());
  t.regex(screen.getByRole('alert').textContent ?? '', /blocked/);
  block = false;
  fireEvent.click(continueButton());
  t.is(calls.length, 2);
  t.truthy(screen.getByText(/Finish in the Scheduling window/));
});

test.serial('"Show the window" focuses the open popup', (t) => {
  const popup = new FakePopup();
  stubOpen(() => popup);
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  toPopupPanel();
  fireEvent.click(continueButton());
  const focusBefore = popup.focusCalls;
  fireEvent.click(screen.getByRole('button', { name: 'Show the window' }));
  t.is(popup.focusCalls, focusBefore + 1);
});

test.serial('a popup the user closes before finishing brings back the continue step', async (t) => {
  const popup = new FakePopup();
  stubOpen(() => popup);
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  toPopupPanel();
  fireEvent.click(continueButton());
  popup.closed = true;
  await waitFor(() => screen.getByText('The window was closed before you finished.'), { timeout: 5000 });
  t.truthy(continueButton());
  t.deepEqual(rec.errors, []);
  post(popup, allowed);
  t.deepEqual(rec.allowed, [], 'a closed popup is no longer a trusted source');
});

test.serial('closing the dialog closes the popup and calls onClose', (t) => {
  const popup = new FakePopup();
  stubOpen(() => popup);
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  toPopupPanel();
  fireEvent.click(continueButton());
  fireEvent.keyDown(document.body, { key: 'Escape' });
  t.is(popup.closeCalls, 1);
  t.is(rec.closed, 1);
  t.true(queryDialog() === null);
});

test.serial('onboarding:close from the popup dismisses the dialog', (t) => {
  const popup = new FakePopup();
  stubOpen(() => popup);
  const rec = recorder();
  renderEmbed(callbackProps(rec));
  toPopupPanel();
  fireEvent.click(continueButton());
  post(popup, { type: 'onboarding:close' }, HOST);
  t.is(rec.closed, 1);
  t.true(queryDialog() === null);
});
