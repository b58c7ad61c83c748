import { runStandaloneService } from '@sched/runtime/runtime';
import { createApiApp } from './app.ts';

await runStandaloneService('api', createApiApp);
