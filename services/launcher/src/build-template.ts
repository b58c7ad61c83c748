import { openDatabase } from '@sched/db/connection';
import { migrateLatest } from '@sched/db/migrate';
import { buildTemplate } from '@sched/db/pglite-template';

// `npm run build`: the embedded database's template (initdb and every migration, done once here
// rather than on a user's first start; see shared/db/src/pglite-template.ts).
const made = await buildTemplate(async (dir) => {
  const db = await openDatabase({ pgliteDir: dir });
  try {
    await migrateLatest(db.knex);
  } finally {
    await db.close();
  }
});
process.stdout.write(made ? 'embedded database template made\n' : 'embedded database template up to date\n');
