import type { AnyRoute } from '../../routing/route.ts';
import { deleteMe } from './delete-me.ts';
import { getMe } from './get-me.ts';
import { updateMe } from './update-me.ts';
import { sendVerificationEmailRoute } from './verification-email.ts';

export const meRoutes: readonly AnyRoute[] = [getMe, updateMe, deleteMe, sendVerificationEmailRoute];
