import { AppError } from '@sched/kit/errors';

/**
 * The embed entry's parent_origin is not the origin of one of the client's registered redirect
 * URIs: shown in the page, and nothing is posted (there is no origin it would be safe to post to).
 */
export class EmbedParentOriginError extends AppError {
  readonly title = 'This site cannot embed Scheduling';
  constructor(
    message = 'parent_origin is not the origin of one of the redirect addresses registered for this application.',
  ) {
    super(400, 'invalid_request', message);
  }
}

/**
 * The same refusal for an agent no administrator has approved yet: no parent_origin is accepted
 * for it, its own redirect origins included, so the usual message would send its developer
 * looking at the wrong thing.
 */
export const UNAPPROVED_AGENT_EMBED =
  'This application has not been approved by an administrator yet: until it is, no site can embed its sign-in.';

/** A profile or calendar form sent outside an onboarding-embed flow, or before its step. */
export class OnboardingStepError extends AppError {
  constructor(message = 'This onboarding step is not available for this request.') {
    super(400, 'onboarding_step', message);
  }
}
