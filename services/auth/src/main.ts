import { runStandaloneService } from '@sched/runtime/runtime';
import { createAuthApp } from './app.ts';

await runStandaloneService('auth', createAuthApp);
