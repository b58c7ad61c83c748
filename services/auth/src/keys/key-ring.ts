import type { TokenStore } from '@sched/db/token-store/types';
import type { Logger } from '@sched/kit/logger';
import type { Runtime } from '@sched/runtime/runtime';
import type { Knex } from 'knex';
import type Provider from 'oidc-provider';
import initializeKeystore from 'oidc-provider/lib/helpers/initialize_keystore.js';
import {
  ensureActiveSigningKey,
  keyEncryptionSecrets,
  loadSigningKeys,
  SIGNING_KEYS_VERSION_KEY,
  type SigningKeySettings,
  type UsableKey,
} from './signing-keys.ts';

/** A safety net only: keys are re-read this often even if no rotation bumped the version. */
const RELOAD_MS = 5 * 60_000;

/**
 * This process's copy of the signing keys, kept in step with the database. Every process reads the
 * same rows; a rotation (or a start-up that had to create a key) bumps the token-store version
 * `signing-keys`, and each process compares that version (one token-store read) before it signs an
 * ID token or serves the JWKS or a metadata document, reloading the rows when it moved. So right
 * after `rotate-keys` every process signs with the new key and publishes both. A retiring key leaves
 * the published set at its `publishedUntil` without a reload. Concurrent callers share one check.
 */
export class SigningKeyRing {
  readonly #knex: Knex;
  readonly #store: TokenStore;
  readonly #settings: SigningKeySettings;
  readonly #logger: Logger;
  readonly #listeners: Array<(keys: readonly UsableKey[]) => void> = [];
  #keys: UsableKey[] = [];
  #version: number | undefined;
  #loadedAt = 0;
  #checking: Promise<void> | undefined;

  constructor(knex: Knex, store: TokenStore, settings: SigningKeySettings, logger: Logger) {
    this.#knex = knex;
    this.#store = store;
    this.#settings = settings;
    this.#logger = logger;
  }

  get settings(): SigningKeySettings {
    return this.#settings;
  }

  /** The keys in use: the active one first. Empty until the first `ensureFresh`. */
  get keys(): readonly UsableKey[] {
    return this.#keys;
  }

  onChange(listener: (keys: readonly UsableKey[]) => void): void {
    this.#listeners.push(listener);
  }

  /** Brings the keys up to date (see the class comment); concurrent calls share one check. */
  ensureFresh(): Promise<void> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #check(): Promise<void> {
    const [version = 0] = await this.#store.readVersions([SIGNING_KEYS_VERSION_KEY]);
    if (version !== this.#version || Date.now() - this.#loadedAt > RELOAD_MS) {
      await this.#load(version);
      return;
    }
    const now = Date.now();
    const published = this.#keys.filter((key) => key.publishedUntil === null || key.publishedUntil > now);
    if (published.length !== this.#keys.length) this.#use(published);
  }

  async #load(version: number): Promise<void> {
    let keys = await loadSigningKeys(this.#knex, this.#settings.secrets);
    const active = keys[0];
    if (!active?.active || active.alg !== this.#settings.alg) {
      if (await ensureActiveSigningKey(this.#knex, this.#settings)) {
        this.#logger.info({ alg: this.#settings.alg }, 'new ID-token signing key generated');
        version = await this.#store.bumpVersion(SIGNING_KEYS_VERSION_KEY);
      }
      keys = await loadSigningKeys(this.#knex, this.#settings.secrets);
    }
    this.#version = version;
    this.#loadedAt = Date.now();
    const same =
      keys.length === this.#keys.length && keys.every((key, index) => key.kid === this.#keys[index]?.kid);
    if (!same) this.#use(keys);
  }

  #use(keys: UsableKey[]): void {
    this.#keys = keys;
    for (const listener of this.#listeners) listener(keys);
  }
}

/**
 * Makes `provider` sign with the ring's active key and publish the ring's keys: its key store is
 * rebuilt on every change, and every ID token is issued after a freshness check.
 */
export function useSigningKeyRing(provider: Provider, ring: SigningKeyRing): void {
  ring.onChange((keys) => {
    initializeKeystore.call(provider, { keys: keys.map((key) => key.privateJwk) });
  });
  const prototype = provider.IdToken.prototype as unknown as {
    issue(this: unknown, ...args: unknown[]): Promise<string>;
  };
  const issue = prototype.issue;
  prototype.issue = async function issueWithFreshKeys(...args) {
    await ring.ensureFresh();
    return issue.apply(this, args);
  };
}

/** The ring of a process, from its configuration; the keys are read (and made on a first start) at once. */
export function startSigningKeyRing(runtime: Runtime): SigningKeyRing {
  const { config, logger } = runtime;
  const ring = new SigningKeyRing(
    runtime.stores.db.knex,
    runtime.stores.tokenStore,
    { secrets: keyEncryptionSecrets(config), alg: config.idTokenSigningAlg },
    logger,
  );
  ring.ensureFresh().catch((error: unknown) => {
    logger.error({ err: error }, 'ID-token signing keys could not be loaded (retried when needed)');
  });
  return ring;
}
