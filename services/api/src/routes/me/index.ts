import type { AnyRoute } from '../../routing/route.ts';
import { getMe } from './get-me.ts';
import { updateMe } from './update-me.ts';

export const meRoutes: readonly AnyRoute[] = [getMe, updateMe];
