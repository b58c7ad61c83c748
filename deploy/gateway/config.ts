import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The nginx configuration of a gateway on one machine (N auth and M API processes on loopback
 * ports), made from deploy/nginx.conf itself: the routing, headers, limits and retry rules are
 * that file's, only what belongs to Docker (user, DNS resolver, service names, fixed paths) is
 * replaced. Each replacement must match what the template says, so a change to the template
 * that this does not understand fails here instead of yielding a different gateway.
 */

export const TEMPLATE_PATH = new URL('../nginx.conf', import.meta.url).pathname;

export interface GatewayConfigOptions {
  /** Where nginx keeps its pid file, logs and temp files (its `-p` prefix). */
  dir: string;
  /** Loopback port the gateway listens on. */
  port: number;
  authPorts: readonly number[];
  apiPorts: readonly number[];
  /** nginx worker processes (default 1: the services need the cores more). */
  workers?: number;
  /**
   * Adds `X-Upstream: <address>` to every proxied answer (which process served it). For tests
   * and diagnosis only: it reveals internal addresses.
   */
  upstreamHeader?: boolean;
}

function replace(text: string, pattern: RegExp, replacement: string, what: string): string {
  const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}gm`);
  const count = text.match(global)?.length ?? 0;
  if (count !== 1) throw new Error(`deploy/nginx.conf: expected one ${what}, found ${count}`);
  return text.replace(global, replacement);
}

/**
 * A process that failed once (refused, reset, timed out, 502) is skipped for this long, then
 * tried again: a restarted one gets traffic back quickly.
 */
export const FAIL_TIMEOUT_SECONDS = 2;

const servers = (ports: readonly number[]) => {
  if (ports.length === 0) throw new Error('a gateway needs at least one process of each service');
  return ports
    .map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=${FAIL_TIMEOUT_SECONDS}s;`)
    .join('\n');
};

export function gatewayConfig(
  options: GatewayConfigOptions,
  template = readFileSync(TEMPLATE_PATH, 'utf8'),
): string {
  const { dir } = options;
  let text = template;
  // Unprivileged by default (a root master runs its workers as nobody).
  text = replace(text, /^user [^;]+;\n/, '', "'user'");
  text = replace(
    text,
    /^worker_processes [^;]+;/,
    `worker_processes ${options.workers ?? 1};`,
    "'worker_processes'",
  );
  text = replace(text, /^pid [^;]+;/, `pid ${join(dir, 'nginx.pid')};`, "'pid'");
  text = replace(text, /^error_log [^;]+;/, `error_log ${join(dir, 'error.log')} warn;`, "'error_log'");
  // Fixed loopback addresses: no DNS.
  text = replace(
    text,
    /^ *# Docker's embedded DNS.*\n *resolver [^;]+;\n *resolver_timeout [^;]+;\n/,
    '',
    "'resolver'",
  );
  text = replace(
    text,
    /^( *)access_log \/dev\/stdout gateway;/,
    `$1access_log ${join(dir, 'access.log')} gateway;`,
    "'access_log'",
  );
  text = text.replace(
    /(_temp_path )\/tmp\/nginx-([a-z-]+);/g,
    (_, directive: string, name: string) => `${directive}${join(dir, name)};`,
  );
  text = replace(text, /^ *server auth:\d+ resolve;/, servers(options.authPorts), "'server auth:...'");
  text = replace(text, /^ *server api:\d+ resolve;/, servers(options.apiPorts), "'server api:...'");
  text = replace(text, /^( *)listen \d+;/, `$1listen 127.0.0.1:${options.port};`, "'listen'");
  if (options.upstreamHeader) {
    text = replace(
      text,
      /^( *)proxy_redirect off;/,
      '$1proxy_redirect off;\n$1add_header X-Upstream $upstream_addr always;',
      "'proxy_redirect off'",
    );
  }
  if (/\/tmp\/nginx|resolve;/.test(text))
    throw new Error('deploy/nginx.conf: a Docker-only setting was left');
  return text;
}
