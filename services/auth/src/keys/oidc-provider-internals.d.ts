// oidc-provider has no API to change its signing keys after construction; key-ring.ts re-runs the
// function the constructor uses (test/auth/keys.test.ts fails if the library changes it).
declare module 'oidc-provider/lib/helpers/initialize_keystore.js' {
  export default function initializeKeystore(
    this: unknown,
    jwks: { keys: Array<Record<string, unknown>> },
  ): void;
}
