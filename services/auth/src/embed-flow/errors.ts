import { AppError } from '@sched/kit/errors';

/**
 * The embed entry's parent_origin is not the origin of one of the client's registered redirect
 * URIs: shown in the page, and nothing is posted (there is no origin it would be safe to post to).
 */
export class EmbedParentOriginError extends AppError {
  readonly title = 'This site cannot embed Scheduling';
  constructor() {
    super(
      400,
      'invalid_request',
      'parent_origin is not the origin of one of the redirect addresses registered for this application.',
    );
  }
}

/** A profile or calendar form sent outside an onboarding-embed flow, or before its step. */
export class OnboardingStepError extends AppError {
  constructor(message = 'This onboarding step is not available for this request.') {
    super(400, 'onboarding_step', message);
  }
}
