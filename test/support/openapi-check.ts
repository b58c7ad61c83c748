import { buildOpenApiDocument } from '@sched/api/openapi/document';
import { routes } from '@sched/api/routes/index';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Checks answers of the resource API against its OpenAPI document, so the document cannot drift
 * from what the API sends. `apiClient` runs it on every response: a request whose method and path
 * name an operation of the document must get a status the operation lists, with a body its schema
 * for that status accepts; anything else fails the test. Requests that name no operation (the auth
 * service, probes of a test's own, unknown paths) are not checked. The document is built once per
 * test process from the same route declarations the API serves, and each schema compiled once, on
 * first use.
 */

type Json = Record<string, unknown>;

interface Operation {
  path: string;
  pattern: RegExp;
  /** Path parameters: with fewer, a path is more specific (`/me/schedule` before `/me/{x}`). */
  params: number;
  responses: Record<string, Json>;
}

const ROOT = 'https://sched.test/schemas/';

/** `#/components/schemas/X` -> the id the checker gives schema X. */
const withAbsoluteRefs = (schema: Json): Json =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${ROOT}`)) as Json;
// ajv-formats is CommonJS with a default export: under Node's ESM loader it arrives as the module.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

class OpenApiChecker {
  readonly #byMethod = new Map<string, Operation[]>();
  readonly #components: Json;
  readonly #ajv = new Ajv2020({ allErrors: true, strict: false });
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: { paths: Record<string, Record<string, unknown>>; components: Json }) {
    this.#components = document.components;
    addFormats(this.#ajv);
    // Each named schema on its own, compiled on first use (compiling them all up front costs most of a second).
    for (const [name, schema] of Object.entries(document.components['schemas'] as Record<string, Json>)) {
      this.#ajv.addSchema({ ...withAbsoluteRefs(schema), $id: `${ROOT}${name}` });
    }
    for (const [path, methods] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const params = path.split('{').length - 1;
      for (const [method, operation] of Object.entries(methods)) {
        const list = this.#byMethod.get(method.toUpperCase()) ?? [];
        list.push({
          path,
          pattern,
          params,
          responses: (operation as { responses: Record<string, Json> }).responses,
        });
        this.#byMethod.set(method.toUpperCase(), list);
      }
    }
    for (const list of this.#byMethod.values()) list.sort((a, b) => a.params - b.params);
  }

  /** What is wrong with an answer, or undefined when it matches (or names no operation). */
  problem(method: string, url: string, status: number, body: unknown): string | undefined {
    const { pathname } = new URL(url);
    if (!pathname.startsWith('/v2/')) return undefined;
    const path = pathname.slice('/v2'.length);
    const operation = this.#byMethod.get(method.toUpperCase())?.find((op) => op.pattern.test(path));
    if (!operation) return undefined;
    const name = `${method.toUpperCase()} ${operation.path}`;
    const declared = operation.responses[String(status)];
    if (!declared) {
      return `${name} answered ${status}, which its operation does not list (${Object.keys(operation.responses).join(', ')})`;
    }
    const response = this.#resolve(declared);
    const schema = (response['content'] as Record<string, { schema: Json }> | undefined)?.['application/json']
      ?.schema;
    if (!schema) {
      return body === undefined || body === null || body === ''
        ? undefined
        : `${name} answered ${status} with a body where the document declares none`;
    }
    const validate = this.#validator(`${name} ${status}`, schema);
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 8)
      .map(
        (error) =>
          `${error.instancePath || '/'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`,
      );
    return `${name} answered ${status} with a body its schema refuses: ${errors.join('; ')}\nbody: ${JSON.stringify(body).slice(0, 1500)}`;
  }

  /** What a schema of the document (refs into components/schemas allowed) says against a value. */
  errorsOf(schema: Json, value: unknown): string[] {
    const validate = this.#validator(JSON.stringify(schema), schema);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  }

  #resolve(response: Json): Json {
    const ref = response['$ref'];
    if (typeof ref !== 'string') return response;
    const name = ref.replace('#/components/responses/', '');
    return (this.#components['responses'] as Record<string, Json>)[name] ?? {};
  }

  #validator(key: string, schema: Json): ValidateFunction {
    let validate = this.#compiled.get(key);
    if (!validate) {
      validate = this.#ajv.compile(withAbsoluteRefs(schema));
      this.#compiled.set(key, validate);
    }
    return validate;
  }
}

let checker: OpenApiChecker | undefined;

/** The one checker of this test process (the document is the same for every test). */
export function openApiChecker(): OpenApiChecker {
  checker ??= new OpenApiChecker(
    buildOpenApiDocument(routes, { appUrl: 'http://app.test', baseUrl: 'http://api.test' }) as unknown as {
      paths: Record<string, Record<string, unknown>>;
      components: Json;
    },
  );
  return checker;
}

/** Throws (failing the test) when an answer of the resource API does not match the document. */
export function assertMatchesDocument(method: string, url: string, status: number, body: unknown): void {
  const problem = openApiChecker().problem(method, url, status, body);
  if (problem) throw new Error(`Response does not match the OpenAPI document: ${problem}`);
}
