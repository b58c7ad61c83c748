import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestFn } from 'ava';
import { exitedOrKilled, freePort, tempDir } from './process.ts';
import { setUpForFile } from './read-through.ts';
import { waitUntil } from './redis-server.ts';
import { setUpTestSystem, type TestSystem } from './system.ts';

// A real CalDAV server for the calendar tests: Debian's radicale on a free loopback port, its
// collections in a temp folder, htpasswd users with plain passwords. The system under test reaches
// it over http on 127.0.0.1, so those tests run with OUTBOUND_PRIVATE_NETWORKS=allow.

export interface RadicaleUser {
  username: string;
  password: string;
}

export class Radicale {
  readonly port: number;
  readonly dir: string;
  #child: ChildProcess | undefined;
  #output = '';
  #exited: Promise<void> = Promise.resolve();

  constructor(port: number, dir: string) {
    this.port = port;
    this.dir = dir;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  output(): string {
    return this.#output;
  }

  /** Writes the config (users as given) and starts; restarts keep the collections. */
  async start(users: readonly RadicaleUser[]): Promise<void> {
    await mkdir(join(this.dir, 'collections'), { recursive: true });
    await writeFile(
      join(this.dir, 'users'),
      users.map((u) => `${u.username}:${u.password}`).join('\n') + '\n',
    );
    await writeFile(
      join(this.dir, 'config'),
      [
        '[server]',
        `hosts = 127.0.0.1:${this.port}`,
        '[auth]',
        'type = htpasswd',
        `htpasswd_filename = ${join(this.dir, 'users')}`,
        'htpasswd_encryption = plain',
        'delay = 0',
        '[rights]',
        'type = owner_only',
        '[storage]',
        `filesystem_folder = ${join(this.dir, 'collections')}`,
        '[logging]',
        'level = warning',
        '',
      ].join('\n'),
    );
    const child = spawn('radicale', ['--config', join(this.dir, 'config')], {
      cwd: this.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    const collect = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    await waitUntil(`radicale on ${this.port}`, 15_000, async () => {
      if (!this.running) throw new Error(`exited:\n${this.#output}`);
      const response = await fetch(`${this.url}/.well-known/caldav`, { redirect: 'manual' });
      return response.status > 0;
    });
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.#child?.kill('SIGTERM');
    await exitedOrKilled(this.#child, this.#exited);
  }

  /** A request as `user` (Basic auth), for setting up and inspecting calendars. */
  request(user: RadicaleUser, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set(
      'authorization',
      `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`,
    );
    return fetch(new URL(path, this.url), { ...init, headers });
  }

  /** Creates the calendar `/<user>/<name>/` (MKCALENDAR) with a display name; returns its path. */
  async makeCalendar(user: RadicaleUser, name: string, displayName: string): Promise<string> {
    const path = `/${user.username}/${name}/`;
    const response = await this.request(user, path, {
      method: 'MKCALENDAR',
      headers: { 'content-type': 'application/xml' },
      body: `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop><D:displayname>${displayName}</D:displayname>
  <C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>
  </D:prop></D:set>
</C:mkcalendar>`,
    });
    if (response.status !== 201)
      throw new Error(`MKCALENDAR ${path}: ${response.status} ${await response.text()}`);
    return path;
  }

  /** Stores one calendar object (a whole VCALENDAR text) in a calendar. */
  async putEvent(user: RadicaleUser, calendarPath: string, name: string, ics: string): Promise<void> {
    const response = await this.request(user, `${calendarPath}${name}.ics`, {
      method: 'PUT',
      headers: { 'content-type': 'text/calendar; charset=utf-8' },
      body: ics,
    });
    if (!response.ok) throw new Error(`PUT ${name}: ${response.status} ${await response.text()}`);
  }

  /** The calendar objects of a calendar (their VCALENDAR texts), read back over CalDAV. */
  async events(user: RadicaleUser, calendarPath: string): Promise<string[]> {
    const response = await this.request(user, calendarPath, {
      method: 'REPORT',
      headers: { depth: '1', 'content-type': 'application/xml' },
      body: `<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:prop><C:calendar-data/></D:prop>
  <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"/></C:comp-filter></C:filter>
</C:calendar-query>`,
    });
    const xml = await response.text();
    return [...xml.matchAll(/BEGIN:VCALENDAR[\s\S]*?END:VCALENDAR/g)].map((match) =>
      match[0].replace(/&#13;|\r/g, '').replace(/\n /g, ''),
    );
  }
}

/** A radicale started now on a free port in a temp folder; `close()` stops it and removes the folder. */
export async function startRadicale(
  users: readonly RadicaleUser[],
): Promise<Radicale & { close(): Promise<void> }> {
  const dir = await tempDir('sched-radicale-');
  const radicale = new Radicale(await freePort(), dir.path);
  await radicale.start(users);
  return Object.assign(radicale, {
    close: async () => {
      await radicale.stop();
      await dir.remove();
    },
  });
}

/** One radicale for the test file: started in a serial before hook, stopped after. */
export function setUpRadicale<Context>(
  test: TestFn<Context>,
  users: readonly RadicaleUser[],
): Radicale & { close(): Promise<void> } {
  return setUpForFile(
    test,
    'radicale',
    () => startRadicale(users),
    (radicale) => radicale.close(),
    {
      port: true,
      dir: true,
      url: true,
      running: true,
      output: true,
      start: true,
      stop: true,
      request: true,
      makeCalendar: true,
      putEvent: true,
      events: true,
      close: true,
    },
  );
}

/** A calendar object with one VEVENT: `lines` after its UID and DTSTAMP (DTSTART, DTEND, RRULE ...). */
export const vevent = (uid: string, lines: readonly string[]): string =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20310101T000000Z',
    ...lines,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

/**
 * The system for a file that connects to radicale (http on loopback: OUTBOUND_PRIVATE_NETWORKS
 * allow). Calendar writes are picked up at once and retried without backoff, so the tests wait on
 * the outcome only.
 */
export const setUpCalDavSystem = <Context>(test: TestFn<Context>): TestSystem =>
  setUpTestSystem(
    test,
    { OUTBOUND_PRIVATE_NETWORKS: 'allow' },
    {
      calendarWrites: {
        intervalMs: 100,
        policy: { maxAttempts: 1000, baseDelaySeconds: 0, maxDelaySeconds: 0 },
      },
    },
  );
