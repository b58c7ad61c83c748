// The README's quickstart: signs a user in to a public client from the command line (the native-app
// recipe: loopback redirect on any port, PKCE) and prints what GET /v2/me answers for them.
//   npm run --silent quickstart -- <client id>
// ISSUER (default http://localhost:3000) is where `npm start` serves.
import { signInFromNativeApp } from './native-app.ts';

const issuer = process.env.ISSUER ?? 'http://localhost:3000';
const clientId = process.argv[2];
if (!clientId) {
  console.error('usage: npm run quickstart -- <client id>');
  process.exit(1);
}

const tokens = await signInFromNativeApp({ issuer, clientId, scope: 'openid PROFILE_READ' }, (url) => {
  console.log(`Open this address in your browser, sign in and allow the app:\n${url.href}`);
});
const me = await fetch(new URL('/v2/me', issuer), {
  headers: { authorization: `Bearer ${tokens.access_token}` },
});
console.log(`GET /v2/me answered ${me.status}:`);
console.log(JSON.stringify(await me.json(), null, 2));
