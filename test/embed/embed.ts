/**
 * The component as sites get it: the tsup build in shared/onboarding-embed/dist (run
 * `npm run build -w @sched/onboarding-embed` first; the root `pretest` does). Typed from the source,
 * so type checking works before a build exists. Import ./dom.ts before this module.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as Embed from '../../shared/onboarding-embed/src/index.tsx';

export const DIST = new URL('../../shared/onboarding-embed/dist/', import.meta.url);

const esm = new URL('index.js', DIST);
if (!existsSync(fileURLToPath(esm))) {
  throw new Error(
    `${fileURLToPath(esm)} is missing: build the component first (npm run build -w @sched/onboarding-embed)`,
  );
}

const embed: typeof Embed = await import(esm.href);
export const { OnboardingEmbed, buildOnboardingUrl, parseMessage, ERROR_CODES, DEFAULT_HOST, PRODUCT_NAME } =
  embed;
export type {
  OnboardingEmbedError,
  OnboardingEmbedProps,
} from '../../shared/onboarding-embed/src/index.tsx';
