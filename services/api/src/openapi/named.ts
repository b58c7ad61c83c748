import { z } from 'zod';

/**
 * Names a request or response schema for the OpenAPI document: it appears once under
 * components/schemas/<name> and operations refer to it, with the example shown there and in the
 * operations that use it. The example is typed by the schema (its input: what a client sends, or
 * for outputs, which have no transforms, what the API answers); a test validates each one.
 */
export function named<T extends z.ZodType>(name: string, schema: T, example: z.input<T>): T {
  return schema.meta({ id: name, examples: [example] }) as T;
}

/** The name `named` gave a schema, if any. */
export const nameOf = (schema: z.ZodType): string | undefined => {
  const id = z.globalRegistry.get(schema)?.id;
  return typeof id === 'string' ? id : undefined;
};

/** The example `named` gave a schema. */
export const exampleOf = (schema: z.ZodType): unknown => {
  const examples = z.globalRegistry.get(schema)?.examples;
  return Array.isArray(examples) ? examples[0] : undefined;
};

/** The element of `z.array(X)`, for list responses. */
export const elementOf = (schema: z.ZodType): z.ZodType | undefined =>
  schema instanceof z.ZodArray ? (schema.element as z.ZodType) : undefined;
