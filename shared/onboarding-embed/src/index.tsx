export { OnboardingEmbed } from './OnboardingEmbed.tsx';
export {
  buildOnboardingUrl,
  DEFAULT_HOST,
  EMBED_PATH,
  ERROR_CODES,
  type EmbedMessage,
  type EmbedMode,
  type OnboardingUrlInput,
  PRODUCT_NAME,
  parseMessage,
} from './protocol.ts';
export type {
  OnboardingEmbedAuthorization,
  OnboardingEmbedAuthorizationResult,
  OnboardingEmbedError,
  OnboardingEmbedProps,
  OnboardingEmbedUser,
  OnboardingErrorCode,
  Theme,
} from './types.ts';
