import type { Context } from 'koa';
import { PATHS } from '../paths.ts';
import { html } from './html.ts';
import { sendPage } from './layout.ts';

/**
 * What the landing page needs of the server's deps (AuthDeps fits): pages/ renders and stays
 * below deps.ts, which imports the provider.
 */
interface HomeDeps {
  issuer: string;
  runtime: { config: { baseUrl: string; signupEnabled: boolean } };
}

/**
 * The landing page at `/`: the first URL `npm start` prints. Where to sign in, manage the account
 * and read the API's documentation; the URLs a developer configures a client with.
 */
export function homePage(deps: HomeDeps) {
  const apiUrl = deps.runtime.config.baseUrl;
  return function homePageHandler(ctx: Context): void {
    const signup = deps.runtime.config.signupEnabled;
    sendPage(
      ctx,
      200,
      'Welcome',
      html`<h1>Scheduling</h1>
<p class="lead">Accounts, connected apps and the scheduling API.</p>
<ul class="home-links">
<li><a href="${PATHS.settingsSignIn}">Sign in</a> to your account settings</li>
${signup ? html`<li><a href="${PATHS.settingsSignUp}">Create account</a></li>` : ''}
<li><a href="${PATHS.settings}">Settings</a>: profile, API keys, connected apps, OAuth clients</li>
<li><a href="${apiUrl}/v2/docs">API documentation</a> (<a href="${apiUrl}/v2/openapi.json">OpenAPI 3.1</a>)</li>
</ul>
<h2>For developers</h2>
<dl class="home-endpoints">
<dt>Issuer and discovery</dt><dd><code>${deps.issuer}${PATHS.discovery}</code></dd>
<dt>Authorization</dt><dd><code>${deps.issuer}${PATHS.authorize}</code></dd>
<dt>Token</dt><dd><code>${deps.issuer}${PATHS.token}</code></dd>
<dt>API</dt><dd><code>${apiUrl}/v2</code></dd>
</dl>`,
    );
  };
}
