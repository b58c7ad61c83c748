import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { ROOT } from '../support/process.ts';

/**
 * Every place that checks a presented secret against what we hold compares in constant time
 * (docs/security.md, "Constant-time comparisons"). A timing difference cannot be asserted reliably
 * in a test, so this pins the code instead: each checking function must call `constantTimeEqual`
 * (@sched/kit/secrets) or node's `timingSafeEqual`, and a rewrite to `===`, `includes` or an
 * early-exit loop that drops the call fails here. A new credential check belongs in this list.
 */
const CHECKS: ReadonlyArray<{ file: string; fn: string; what: string }> = [
  { file: 'shared/kit/src/passwords.ts', fn: 'verifyPassword', what: 'passwords (scrypt output)' },
  {
    file: 'services/auth/src/provider/clients.ts',
    fn: 'secretMatches',
    what: 'OAuth client and resource-server secrets',
  },
  { file: 'services/api/src/auth/authenticate.ts', fn: 'authenticateClientSecret', what: 'x-svc-secret-key' },
  { file: 'services/auth/src/http/csrf.ts', fn: 'verifyCsrfToken', what: 'CSRF tokens' },
  {
    file: 'services/auth/src/calendars/connect-state.ts',
    fn: 'takeConnectState',
    what: 'calendar connect binding',
  },
  { file: 'services/auth/src/endpoints/answer-seal.ts', fn: 'open', what: 'refresh retry answer MAC' },
  { file: 'shared/kit/src/http/server.ts', fn: 'metricsAllowed', what: 'METRICS_TOKEN' },
];

/** The text of function (or method) `fn` in `source`: from its declaration to its closing brace. */
function functionBody(source: string, fn: string): string | undefined {
  const start = source.search(new RegExp(`(?:function\\s+${fn}|^\\s+${fn})\\s*\\(`, 'm'));
  if (start < 0) return undefined;
  const open = source.indexOf('{', source.indexOf(')', start));
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    if (source[i] === '{') depth++;
    else if (source[i] === '}' && --depth === 0) return source.slice(start, i + 1);
  }
  return undefined;
}

for (const { file, fn, what } of CHECKS) {
  test(`${what}: ${fn} in ${file} compares in constant time`, (t) => {
    const body = functionBody(readFileSync(join(ROOT, file), 'utf8'), fn);
    if (!body) return t.fail(`${fn} not found in ${file}: update this list`);
    t.regex(body, /\b(constantTimeEqual|timingSafeEqual)\(/);
  });
}

test('the body finder finds a method and stops at its closing brace', (t) => {
  const source =
    'class A {\n  open(x: string) {\n    if (x) { return 1; }\n    return 2;\n  }\n  other() {}\n}\n';
  t.is(functionBody(source, 'open'), '  open(x: string) {\n    if (x) { return 1; }\n    return 2;\n  }');
  t.is(functionBody(source, 'missing'), undefined);
});
