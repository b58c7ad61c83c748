/**
 * What every answer of a route declared `deprecated` carries, errors included (a caller that only
 * ever sees 401s or 404s learns of the removal too): `Deprecation` (RFC 9745, deprecated since
 * 2026-01-01), `Sunset` (RFC 8594, removal after 2027-06-30; docs/oauth-clients.md) and a link to
 * the documentation.
 */
export const DEPRECATED_SINCE = new Date(Date.UTC(2026, 0, 1));
export const SUNSET_AT = new Date(Date.UTC(2027, 5, 30, 23, 59, 59));

export const DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: `@${Math.floor(DEPRECATED_SINCE.getTime() / 1000)}`,
  Sunset: SUNSET_AT.toUTCString(),
  Link: '</v2/docs>; rel="deprecation"; type="text/html"',
};
