// Client ID Metadata Documents served over https by the test itself: a throwaway CA and a
// certificate for localhost / 127.0.0.1 / ::1 made with the openssl command, trusted by this
// process (tls.setDefaultCACertificates) and, for child processes, through NODE_EXTRA_CA_CERTS.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import type { TestFn } from 'ava';

export interface TestCertificates {
  /** PEM of the CA (what NODE_EXTRA_CA_CERTS points to: `caFile`). */
  ca: string;
  caFile: string;
  key: string;
  cert: string;
  remove(): Promise<void>;
}

/** A CA and a server certificate it signed, in a temporary folder. */
export async function makeCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'sched-test-ca-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=sched test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  );
  await writeFile(
    file('ext.cnf'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('ext.cnf'),
    '-out',
    file('server.pem'),
  );
  const [ca, key, cert] = await Promise.all(
    ['ca.pem', 'server.key', 'server.pem'].map((name) => readFile(file(name), 'utf8')),
  );
  return {
    ca: ca!,
    caFile: file('ca.pem'),
    key: key!,
    cert: cert!,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Makes this process's https clients (the outbound module included) trust `ca` too. */
export function trustInThisProcess(ca: string): void {
  setDefaultCACertificates([...getCACertificates('default'), ca]);
}

export interface ServedDocument {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value (serialised) or a raw string. */
  body: unknown;
}

export interface DocumentServer {
  /** `https://127.0.0.1:<port>` (also reachable as https://localhost:<port>). */
  origin: string;
  port: number;
  /** Serves `document` at `path`; returns its URL (the client_id). */
  serve(path: string, document: ServedDocument, host?: string): string;
  /** How many requests `path` received. */
  fetches(path: string): number;
  close(): Promise<void>;
}

/** An https server answering the documents the test set, counting requests per path. */
export async function startDocumentServer(certificates: TestCertificates): Promise<DocumentServer> {
  const documents = new Map<string, ServedDocument>();
  const counts = new Map<string, number>();
  const server: Server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const document = documents.get(path);
    if (!document) {
      res.writeHead(404).end();
      return;
    }
    const body = typeof document.body === 'string' ? document.body : JSON.stringify(document.body);
    res.writeHead(document.status ?? 200, { 'content-type': 'application/json', ...document.headers });
    res.end(body);
  });
  // Both stacks: `localhost` may resolve to ::1 first.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '::', ipv6Only: false }, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    port,
    serve(path, document, host = '127.0.0.1') {
      documents.set(path, document);
      return `https://${host}:${port}${path}`;
    },
    fetches: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A metadata document for `clientId` (a public agent with one redirect URI), with `extra` members. */
export function agentDocument(
  clientId: string,
  redirectUri: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: 'Test Agent',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  };
}

/**
 * A test file's document server: certificates made and trusted in this process before the tests,
 * the server closed and the certificates removed after them. Returns the running server.
 */
export function setUpDocumentServer(test: TestFn): () => DocumentServer {
  let certificates: TestCertificates | undefined;
  let documents: DocumentServer | undefined;
  test.before(async () => {
    certificates = await makeCertificates();
    trustInThisProcess(certificates.ca);
    documents = await startDocumentServer(certificates);
  });
  test.after.always(async () => {
    await documents?.close();
    await certificates?.remove();
  });
  return () => {
    if (!documents) throw new Error('the document server starts in test.before');
    return documents;
  };
}
