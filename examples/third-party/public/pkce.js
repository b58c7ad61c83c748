// PKCE (RFC 7636) and state, generated in the browser with Web Crypto.
// The verifier stays with the site; only its S256 challenge goes to the scheduling service.

function base64url(bytes) {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function randomString(byteLength = 32) {
  return base64url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

/** A fresh { state, verifier, challenge }. */
export async function newAuthorizationRequest() {
  const verifier = randomString(32); // 43 characters, within RFC 7636's 43-128
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { state: randomString(16), verifier, challenge: base64url(new Uint8Array(digest)) };
}

// Redirect mode leaves the page, so the verifier waits in sessionStorage, keyed by state.
const KEY = 'acme:pending-authorization:';

export function rememberRequest(request) {
  sessionStorage.setItem(KEY + request.state, JSON.stringify({ verifier: request.verifier, at: Date.now() }));
}

export function takeRequest(state) {
  const raw = sessionStorage.getItem(KEY + state);
  sessionStorage.removeItem(KEY + state);
  return raw ? JSON.parse(raw) : null;
}

/** The site's back end trades the code for tokens (see POST /exchange in server.ts). */
export async function exchangeCode(code, verifier, clientId) {
  const response = await fetch('/exchange', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, codeVerifier: verifier, clientId }),
  });
  return response.json();
}
