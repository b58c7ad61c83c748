// Redirect mode lands here: ?code=...&state=... (or ?error=access_denied&state=...).
import { exchangeCode, takeRequest } from './pkce.js';

const out = document.getElementById('callback');
const params = new URLSearchParams(location.search);
const state = params.get('state');
const settings = JSON.parse(localStorage.getItem('acme:settings') ?? '{}');
const serverConfig = JSON.parse(document.getElementById('example-config').textContent);

function show(title, detail) {
  out.replaceChildren();
  const h = document.createElement('h2');
  h.textContent = title;
  const pre = document.createElement('pre');
  pre.className = 'log';
  pre.dataset.testid = 'callback-result';
  pre.textContent = typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2);
  out.append(h, pre);
}

const pending = state ? takeRequest(state) : null;
if (!pending) {
  show('Unknown state', 'This response does not belong to a request made from this browser tab; ignored.');
} else if (params.get('error')) {
  show(`Not authorized: ${params.get('error')}`, Object.fromEntries(params));
} else {
  const code = params.get('code');
  show('Exchanging the code…', `code ${code?.slice(0, 8)}…`);
  exchangeCode(code, pending.verifier, serverConfig.clientId || settings.clientId).then(
    (result) => show(result.ok ? 'Connected' : 'Exchange failed', result),
    (error) => show('Exchange failed', String(error)),
  );
}
