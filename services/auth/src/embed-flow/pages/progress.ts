import { html, type SafeHtml } from '../../pages/html.ts';

const STEPS = ['Account', 'Profile', 'Calendar', 'Authorize'] as const;
export type OnboardingStepName = (typeof STEPS)[number];

/** "Step 2 of 4 · Profile" with a bar per step: where the user is in the flow. */
export function progress(current: OnboardingStepName): SafeHtml {
  const index = STEPS.indexOf(current);
  return html`<ol class="steps" aria-hidden="true">${STEPS.map(
    (_, i) => html`<li class="${i < index ? 'done' : i === index ? 'current' : ''}"></li>`,
  )}</ol>
<p class="step-label">Step ${index + 1} of ${STEPS.length} · ${current}</p>`;
}
