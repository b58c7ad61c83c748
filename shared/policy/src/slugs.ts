import { z } from 'zod';

/** A URL-style slug (organizations, teams): the API's rule and the admin console's. */
export const slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/, 'letters and digits, words separated by single dashes');
