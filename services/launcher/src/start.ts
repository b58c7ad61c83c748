import { bootService } from '@sched/kit/boot';
import { composeSystem } from './compose.ts';

// `npm start`: both services in one process on one origin (see compose.ts).
await bootService('sched', composeSystem);
