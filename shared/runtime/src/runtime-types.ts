import type { CalendarService } from '@sched/calendars/service';
import type { Stores } from '@sched/db/stores';
import type { Config } from '@sched/kit/config';
import type { Logger } from '@sched/kit/logger';
import type { Mailer } from '@sched/kit/mailer';

export type RuntimeConfig = Config & { cookieKeys: string[] };

/** Everything a service needs from the process: config, logging, data stores, mail, calendars. */
export interface Runtime {
  config: RuntimeConfig;
  logger: Logger;
  stores: Stores;
  mailer: Mailer;
  calendars: CalendarService;
  close(): Promise<void>;
}
