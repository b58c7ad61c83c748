import {
  type KeyboardEvent as ReactKeyboardEvent,
  type MouseEvent as ReactMouseEvent,
  type ReactElement,
  type ReactNode,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { createPortal } from 'react-dom';
import {
  buildOnboardingUrl,
  type EmbedMessage,
  hostOrigin,
  PRODUCT_NAME,
  parseMessage,
  withQuery,
} from './protocol.ts';
import { DIALOG_CSS, TRIGGER_CSS } from './styles.ts';
import type { OnboardingEmbedError, OnboardingEmbedProps } from './types.ts';
import { type ValidProps, validateProps } from './validate.ts';

/** What the dialog needs, captured when it opens (later prop changes do not affect an open dialog). */
interface Session {
  props: ValidProps;
  parentOrigin: string;
  container: HTMLElement;
}

type Report = (error: OnboardingEmbedError) => void;

const POPUP_NAME = 'sched-onboarding';
const POPUP_WIDTH = 500;
const POPUP_HEIGHT = 720;
const POPUP_POLL_MS = 500;
/**
 * After each `load` of the iframe, how long its page has to post `onboarding:ready` (every page of
 * the flow does). Silence means the browser showed its own error page instead: framing refused
 * (this origin is not a registered redirect URI origin, or a step expired and the server no longer
 * knows the client), the host unreachable, or a page without the protocol script.
 */
const READY_TIMEOUT_MS = 5000;

/** The frame's initial empty document (some browsers fire `load` for it): not a page of the flow. */
function isBlank(frame: HTMLIFrameElement | null): boolean {
  try {
    return frame?.contentWindow?.location.href === 'about:blank';
  } catch {
    return false; // another origin's page: a real load
  }
}

const TABBABLE =
  'button:not([disabled]), iframe, a[href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusableIn(root: Element | null): HTMLElement[] {
  if (!root) return [];
  return Array.from(root.querySelectorAll<HTMLElement>(TABBABLE)).filter(
    (el) => !el.hasAttribute('data-sched-oe-guard') && el.getAttribute('aria-hidden') !== 'true',
  );
}

function Logo() {
  return (
    <span className="sched-oe-logo" aria-hidden="true">
      <svg width="16" height="16" viewBox="0 0 24 24" fill="none" aria-hidden="true" focusable="false">
        <rect x="3.5" y="5" width="17" height="15.5" rx="3" stroke="currentColor" strokeWidth="2" />
        <path d="M3.5 10h17M8 3v4M16 3v4" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        <path
          d="M9 15l2 2 4-4"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
    </span>
  );
}

/**
 * An invisible stop at either end of the dialog: Tab leaving the cross-origin iframe (whose keys the
 * page never sees) lands here and is sent round to the other end, so focus stays in the dialog.
 */
function FocusGuard({ onFocus }: { onFocus: () => void }) {
  // biome-ignore lint/a11y/noNoninteractiveTabindex lint/a11y/noStaticElementInteractions: a focus guard must be tabbable and has no content to announce
  return <span tabIndex={0} className="sched-oe-guard" data-sched-oe-guard="" onFocus={onFocus} />;
}

/**
 * "Continue with Scheduling": opens a dialog running the scheduling service's onboarding and consent
 * flow in an iframe (or a popup window when the browser refuses the iframe its cookies), and hands
 * the authorization code to the page. See README.md for the props, both modes and the protocol.
 */
export function OnboardingEmbed(props: OnboardingEmbedProps): ReactElement | null {
  const latest = useRef(props);
  latest.current = props;
  const [session, setSession] = useState<Session | null>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const wasOpen = useRef(false);

  const validation = validateProps(props as unknown as Record<string, unknown>);
  const invalidMessage = validation.ok ? null : validation.message;

  const report = useCallback<Report>((error) => {
    const onError = latest.current.onError;
    if (typeof onError === 'function') onError(error);
    else console.error(`[OnboardingEmbed] ${error.code}: ${error.message}`);
  }, []);

  // Once per distinct problem (a ref, so StrictMode's second effect run does not report it twice).
  const reported = useRef<string | null>(null);
  useEffect(() => {
    if (invalidMessage === reported.current) return;
    reported.current = invalidMessage;
    if (invalidMessage) report({ code: 'INVALID_PROPS', message: invalidMessage });
  }, [invalidMessage, report]);

  // Focus goes back to the trigger once the dialog has closed.
  useEffect(() => {
    if (session) {
      wasOpen.current = true;
      return;
    }
    if (!wasOpen.current) return;
    wasOpen.current = false;
    const target = returnFocus.current;
    returnFocus.current = null;
    if (target?.isConnected) target.focus();
  }, [session]);

  const close = () => setSession(null);
  const dialog = session
    ? createPortal(
        <EmbedDialog session={session} latest={latest} report={report} onFinished={close} />,
        session.container,
      )
    : null;
  // Props are read when the dialog opens: a dialog already open keeps running on the props it opened
  // with when the site re-renders with invalid ones (reported above); only the trigger goes. Same
  // slot as below, so React keeps the dialog (its iframe, its popup) instead of remounting it.
  if (!validation.ok)
    return (
      <>
        {null}
        {dialog}
      </>
    );
  const valid = validation.props;

  const open = (event: ReactMouseEvent<HTMLElement>) => {
    if (event.defaultPrevented || session) return;
    // A custom trigger may be a link or a submit button: opening the dialog replaces what it would do.
    event.preventDefault();
    const active = document.activeElement;
    returnFocus.current =
      active instanceof HTMLElement && active !== document.body && event.currentTarget.contains(active)
        ? active
        : (focusableIn(event.currentTarget)[0] ??
          (event.currentTarget.matches(TABBABLE) ? event.currentTarget : null));
    setSession({ props: valid, parentOrigin: window.location.origin, container: document.body });
  };

  const trigger =
    props.trigger === undefined || props.trigger === null ? (
      <>
        <style>{TRIGGER_CSS}</style>
        <button
          type="button"
          className={`sched-oe-trigger sched-oe-theme-${valid.theme}`}
          data-theme={valid.theme}
          aria-haspopup="dialog"
          onClick={open}
        >
          <Logo />
          <span>Continue with {PRODUCT_NAME}</span>
        </button>
      </>
    ) : (
      // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: the click comes from the site's own (interactive) trigger element inside; keyboard activation of that element fires the same click
      <span
        className="sched-oe-trigger-wrap"
        data-theme={valid.theme}
        style={{ display: 'contents' }}
        onClick={open}
      >
        {props.trigger}
      </span>
    );

  return (
    <>
      {trigger}
      {dialog}
    </>
  );
}

type View =
  | 'iframe'
  | 'frame-silent'
  | 'popup-needed'
  | 'popup-blocked'
  | 'popup-open'
  | 'popup-closed'
  | 'redirecting';

interface DialogProps {
  session: Session;
  latest: { readonly current: OnboardingEmbedProps };
  report: Report;
  /** Unmounts the dialog (after a dismissal or a finished authorization). */
  onFinished: () => void;
}

function EmbedDialog({ session, latest, report, onFinished }: DialogProps): ReactElement {
  const { props, parentOrigin } = session;
  const titleId = useId();
  const [view, setView] = useState<View>('iframe');
  const [loading, setLoading] = useState(true);
  const overlayRef = useRef<HTMLDivElement>(null);
  const dialogRef = useRef<HTMLDivElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const iframeRef = useRef<HTMLIFrameElement>(null);
  const popupRef = useRef<Window | null>(null);
  const done = useRef(false);
  // Each frame load is matched with its page's onboarding:ready, whichever the browser delivers first.
  const frameReadyUnmatched = useRef(false);
  const frameLoadUnmatched = useRef(false);
  const frameLoads = useRef(0);
  /** The number of the frame load still waiting for its ready (0: none). */
  const [awaitedLoad, setAwaitedLoad] = useState(0);
  const [iframeUrl] = useState(() => buildOnboardingUrl({ ...props, parentOrigin, mode: 'iframe' }));
  const [popupUrl] = useState(() => buildOnboardingUrl({ ...props, parentOrigin, mode: 'popup' }));

  const closePopup = useCallback(() => {
    const popup = popupRef.current;
    popupRef.current = null;
    try {
      if (popup && !popup.closed) popup.close();
    } catch {
      // A severed or navigated-away popup can refuse; it is no longer ours either way.
    }
  }, []);

  /** The user closed the dialog without finishing: Escape, the close button, or Cancel in the flow. */
  const dismiss = useCallback(() => {
    if (done.current) return;
    done.current = true;
    closePopup();
    onFinished();
    latest.current.onClose?.();
  }, [closePopup, latest, onFinished]);

  const navigate = useCallback((url: string) => {
    setView('redirecting');
    window.location.assign(url);
  }, []);

  const handle = useCallback(
    (message: EmbedMessage, fromPopup: boolean) => {
      switch (message.type) {
        case 'onboarding:ready':
          if (!fromPopup) {
            if (frameLoadUnmatched.current) {
              frameLoadUnmatched.current = false;
              setAwaitedLoad(0);
            } else frameReadyUnmatched.current = true;
          }
          setLoading(false);
          return;
        case 'onboarding:needs-popup':
          if (fromPopup) return;
          setLoading(false);
          setView('popup-needed');
          return;
        case 'onboarding:close':
          dismiss();
          return;
        case 'onboarding:error':
          report({ code: message.code, message: message.message });
          return;
        case 'authorization:allowed':
        case 'authorization:denied':
          break;
      }
      if (message.state !== props.state) {
        report({
          code: 'STATE_MISMATCH',
          message:
            'The authorization response carried a state that does not match authorization.state; ignored.',
        });
        return;
      }
      const { onAuthorizationAllowed, onAuthorizationDenied } = latest.current;
      const callbackMode = typeof onAuthorizationAllowed === 'function';
      if (message.type === 'authorization:allowed') {
        if (typeof message.code !== 'string' || message.code.length === 0) {
          report({ code: 'AUTHORIZATION_FAILED', message: 'The authorization response carried no code.' });
          return;
        }
        done.current = true;
        closePopup();
        if (callbackMode) {
          try {
            onAuthorizationAllowed({
              code: message.code,
              state: props.state,
              ...(message.iss ? { iss: message.iss } : {}),
            });
          } finally {
            onFinished();
          }
        } else {
          navigate(
            withQuery(props.redirectUri, { code: message.code, state: props.state, iss: message.iss }),
          );
        }
        return;
      }
      done.current = true;
      closePopup();
      if (typeof onAuthorizationDenied === 'function') {
        try {
          onAuthorizationDenied();
        } finally {
          onFinished();
        }
      } else if (!callbackMode) {
        navigate(
          withQuery(props.redirectUri, { error: 'access_denied', state: props.state, iss: message.iss }),
        );
      } else {
        onFinished();
      }
    },
    [closePopup, dismiss, latest, navigate, onFinished, props.redirectUri, props.state, report],
  );

  // Messages: exact origin of `host`, from our iframe's window or our popup, then the protocol.
  useEffect(() => {
    const expectedOrigin = hostOrigin(props.host);
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== expectedOrigin || !event.source) return;
      const iframeWindow = iframeRef.current?.contentWindow ?? null;
      const popup = popupRef.current;
      const fromIframe = iframeWindow !== null && event.source === iframeWindow;
      const fromPopup = popup !== null && event.source === popup;
      if ((!fromIframe && !fromPopup) || done.current) return;
      const message = parseMessage(event.data);
      if (message) handle(message, fromPopup);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [handle, props.host]);

  // Escape closes, wherever focus is in the page (inside the cross-origin frame the frame posts onboarding:close).
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      dismiss();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [dismiss]);

  // Focus moves in on open; focus that lands outside the dialog is brought back; page scroll is locked.
  useEffect(() => {
    closeRef.current?.focus();
    const onFocusIn = (event: FocusEvent) => {
      const overlay = overlayRef.current;
      if (overlay && event.target instanceof Node && !overlay.contains(event.target)) {
        (focusableIn(dialogRef.current)[0] ?? dialogRef.current)?.focus();
      }
    };
    document.addEventListener('focusin', onFocusIn);
    const body = document.body;
    const overflow = body.style.overflow;
    body.style.overflow = 'hidden';
    return () => {
      document.removeEventListener('focusin', onFocusIn);
      body.style.overflow = overflow;
    };
  }, []);

  // When the iframe gives way to a panel, focus goes to the panel's action.
  useEffect(() => {
    if (view === 'iframe') return;
    const active = document.activeElement;
    if (!active || active === document.body || !dialogRef.current?.contains(active)) {
      const buttons = focusableIn(dialogRef.current);
      (buttons[1] ?? buttons[0])?.focus();
    }
  }, [view]);

  // Every page in the frame must answer; if one does not, say so and offer the popup instead.
  useEffect(() => {
    if (awaitedLoad === 0 || view !== 'iframe') return;
    const timer = setTimeout(() => {
      if (!frameLoadUnmatched.current || done.current) return;
      setView('frame-silent');
      report({
        code: 'UNKNOWN',
        message:
          `The onboarding page did not load in the frame (no onboarding:ready from ${hostOrigin(props.host)}): ` +
          'the host may be unreachable, or refuse to be framed by this origin (is it the origin of a registered redirect URI?).',
      });
    }, READY_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, [awaitedLoad, view, report, props.host]);

  // A popup closed by the user before it finished: offer to reopen it.
  useEffect(() => {
    if (view !== 'popup-open') return;
    const timer = setInterval(() => {
      const popup = popupRef.current;
      if (popup?.closed && !done.current) {
        popupRef.current = null;
        setView('popup-closed');
      }
    }, POPUP_POLL_MS);
    return () => clearInterval(timer);
  }, [view]);

  // Unmounted for any reason (including the site removing the component): close our popup.
  useEffect(() => closePopup, [closePopup]);

  const openPopup = () => {
    const left = Math.max(0, Math.round(window.screenX + (window.outerWidth - POPUP_WIDTH) / 2));
    const top = Math.max(0, Math.round(window.screenY + (window.outerHeight - POPUP_HEIGHT) / 2));
    const features = `popup=yes,width=${POPUP_WIDTH},height=${POPUP_HEIGHT},left=${left},top=${top}`;
    let popup: Window | null = null;
    try {
      popup = window.open(popupUrl, POPUP_NAME, features);
    } catch {
      popup = null;
    }
    if (!popup) {
      setView('popup-blocked');
      return;
    }
    popupRef.current = popup;
    setView('popup-open');
    popup.focus?.();
  };

  const focusPopup = () => {
    const popup = popupRef.current;
    if (popup && !popup.closed) popup.focus();
    else openPopup();
  };

  const onDialogKeyDown = (event: ReactKeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'Tab') return;
    const items = focusableIn(dialogRef.current);
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) {
      event.preventDefault();
      return;
    }
    const active = document.activeElement;
    if (event.shiftKey && (active === first || active === dialogRef.current)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first.focus();
    }
  };

  const focusFirst = () => focusableIn(dialogRef.current)[0]?.focus();
  const focusLast = () => focusableIn(dialogRef.current).at(-1)?.focus();

  const theme = props.theme;
  const themeClass = `sched-oe-theme-${theme}`;

  let body: ReactNode;
  if (view === 'iframe') {
    body = (
      <>
        {loading ? (
          <div className="sched-oe-spinner-wrap" role="status">
            <span className="sched-oe-spinner" aria-hidden="true" />
            <span>Loading…</span>
          </div>
        ) : null}
        <iframe
          ref={iframeRef}
          className={`sched-oe-frame${loading ? ' sched-oe-loading' : ''}`}
          title={`Sign in to ${PRODUCT_NAME} and authorize access`}
          src={iframeUrl}
          style={{ colorScheme: theme }}
          sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-storage-access-by-user-activation"
          allow="storage-access"
          onLoad={() => {
            setLoading(false);
            if (isBlank(iframeRef.current)) return;
            if (frameReadyUnmatched.current) {
              frameReadyUnmatched.current = false;
              return;
            }
            frameLoadUnmatched.current = true;
            frameLoads.current += 1;
            setAwaitedLoad(frameLoads.current);
          }}
        />
      </>
    );
  } else if (view === 'redirecting') {
    body = (
      <div className="sched-oe-spinner-wrap" role="status">
        <span className="sched-oe-spinner" aria-hidden="true" />
        <span>Redirecting…</span>
      </div>
    );
  } else if (view === 'popup-open') {
    body = (
      <div className="sched-oe-panel">
        <p>Finish in the {PRODUCT_NAME} window. This dialog closes when you are done.</p>
        <button type="button" className="sched-oe-button" onClick={focusPopup}>
          Show the window
        </button>
      </div>
    );
  } else {
    body = (
      <div className="sched-oe-panel">
        <p>
          {view === 'frame-silent'
            ? `${PRODUCT_NAME} could not be shown inside this dialog. Continue in a new window instead.`
            : 'Your browser blocks signing in inside this dialog. Continue in a new window to finish.'}
        </p>
        <button type="button" className="sched-oe-button" onClick={openPopup}>
          Continue in a new window
        </button>
        {view === 'popup-blocked' ? (
          <p className="sched-oe-note" role="alert">
            The window was blocked. Allow pop-ups for this site, then try again.
          </p>
        ) : null}
        {view === 'popup-closed' ? (
          <p className="sched-oe-note" role="status">
            The window was closed before you finished.
          </p>
        ) : null}
      </div>
    );
  }

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: only keeps clicks in the dialog from reaching the site's handlers around the component (portals bubble through the React tree)
    <div
      ref={overlayRef}
      className={`sched-oe-overlay ${themeClass}`}
      data-theme={theme}
      onClick={(event) => event.stopPropagation()}
    >
      <style>{DIALOG_CSS}</style>
      <FocusGuard onFocus={focusLast} />
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        className={`sched-oe-dialog ${themeClass}`}
        data-theme={theme}
        onKeyDown={onDialogKeyDown}
      >
        <div className="sched-oe-header">
          <Logo />
          <h2 id={titleId} className="sched-oe-title">
            Continue with {PRODUCT_NAME}
          </h2>
          <button
            ref={closeRef}
            type="button"
            className="sched-oe-close"
            aria-label="Close"
            onClick={dismiss}
          >
            <svg width="18" height="18" viewBox="0 0 24 24" fill="none" aria-hidden="true" focusable="false">
              <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </button>
        </div>
        <div className="sched-oe-body">{body}</div>
      </div>
      <FocusGuard onFocus={focusFirst} />
    </div>
  );
}
