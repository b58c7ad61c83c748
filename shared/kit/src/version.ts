import { readFileSync } from 'node:fs';

/**
 * The system's version: `version` of the repository's package.json, read once at start-up
 * (`GET /health/alive`, `npm run cli -- --version`, backup files). "unknown" when the file is missing.
 */
function readVersion(): string {
  try {
    const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export const APP_VERSION: string = readVersion();
