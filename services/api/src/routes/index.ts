import type { AnyRoute } from '../routing/route.ts';

/**
 * Every route of the resource API. Each feature folder exports its list; add yours here
 * (one import, one spread). The OpenAPI document is generated from this same list.
 */
export const routes: readonly AnyRoute[] = [];
