import { describeScope } from '@sched/policy/scope-descriptions';
import { CSRF_FIELD } from '../http/csrf.ts';
import { interactionPath } from '../paths.ts';
import { html, type SafeHtml } from './html.ts';

export interface ConsentView {
  uid: string;
  csrf: string;
  client: { name: string; logo: string | null; websiteUrl: string | null; isLegacy: boolean };
  /** The signed-in user, as shown ("Signed in as ..."). */
  account: string;
  scopes: readonly string[];
  /** Shown above the client (the onboarding embed's progress). */
  header?: SafeHtml;
  /** An agent client (metadata document or dynamic registration): who it is, where it returns. */
  agent?: AgentFacts;
}

export interface AgentFacts {
  /** Not (yet) approved by an administrator: `Unverified app`. */
  unverified: boolean;
  /** The host of its client_id URL (metadata documents); null for dynamic registrations. */
  clientIdHost: string | null;
  /** The host the answer goes back to (this request's redirect_uri). */
  redirectHost: string;
  /** The redirect goes to the user's own computer (loopback). */
  loopback: boolean;
}

/**
 * What the user learns about an agent before allowing it: whether an administrator
 * verified it, the host that vouches for its identity, where the answer goes, and a warning when
 * that is an app on this computer (anything running there could receive it).
 */
function agentFacts(agent: AgentFacts): SafeHtml {
  return html`${agent.unverified ? html`<div class="alert alert-warn" role="note"><strong>Unverified app</strong>: an administrator has not reviewed this app yet. Until then it can only be given limited access.</div>` : ''}
<dl class="agent-facts">
${agent.clientIdHost ? html`<dt>Identified by</dt><dd>${agent.clientIdHost}</dd>` : html`<dt>Identified by</dt><dd>self-registered, no verified address</dd>`}
<dt>Returns to</dt><dd>${agent.redirectHost}</dd>
</dl>
${agent.loopback ? html`<div class="alert alert-warn" role="note">This app receives your authorization on this computer (${agent.redirectHost}). Allow it only if you started it yourself.</div>` : ''}`;
}

/** Only absolute http(s) URLs are shown as links or images; anything else is left out. */
function webUrl(value: string | null): URL | null {
  const url = value ? URL.parse(value) : null;
  return url && (url.protocol === 'https:' || url.protocol === 'http:') ? url : null;
}

function clientHeader(client: ConsentView['client']): SafeHtml {
  const logo = webUrl(client.logo);
  const site = webUrl(client.websiteUrl);
  return html`<div class="client">
${logo ? html`<img class="client-logo" src="${logo.href}" alt="${client.name} logo" width="52" height="52">` : html`<span class="client-initial" aria-hidden="true">${client.name.slice(0, 1).toUpperCase()}</span>`}
<div>
<div><strong>${client.name}</strong></div>
${site ? html`<a class="client-site" href="${site.href}" rel="noopener noreferrer" target="_blank">${site.host}</a>` : ''}
</div>
</div>`;
}

function scopeItems(view: ConsentView): SafeHtml {
  if (view.scopes.length === 0) {
    return html`<li><span>Access your account</span></li>`;
  }
  return html`${view.scopes.map((scope) => html`<li><span>${describeScope(scope)}<span class="scope-code">${scope}</span></span></li>`)}`;
}

export function consentPage(view: ConsentView): SafeHtml {
  const { client } = view;
  return html`${view.header ?? ''}${clientHeader(client)}
<h1>${client.name} wants to access your account</h1>
<p class="account">Signed in as <strong>${view.account}</strong></p>
${view.agent ? agentFacts(view.agent) : ''}
<p id="scopes-title">This will allow ${client.name} to:</p>
<ul class="scopes" aria-labelledby="scopes-title">
${scopeItems(view)}
</ul>
${
  client.isLegacy
    ? html`<div class="alert alert-warn" role="note">This app uses an older kind of access that is not limited to the items above: it can reach everything your account can.</div>`
    : ''
}
<form method="post" action="${interactionPath(view.uid, 'consent')}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="allow" class="primary">Allow</button>
</div>
</form>
<p class="fineprint">Allow only apps you trust. ${client.name} will be able to act on your behalf within these permissions.</p>`;
}
