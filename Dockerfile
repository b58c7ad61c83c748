# syntax=docker/dockerfile:1
#
# One image family, one target per process. No build step: Node 24 runs the .ts sources directly.
#
#   docker build --target auth       -t sched-auth .     # authorization server  node services/auth/src/main.ts
#   docker build --target api        -t sched-api .      # resource API          node services/api/src/main.ts
#   docker build --target tools      -t sched-tools .    # operator CLI          node services/launcher/src/cli.ts
#   docker build --target migrate    -t sched-migrate .  # the CLI preset to `migrate` (one-shot job)
#   docker build --target all-in-one -t sched .          # both services on one origin (npm start)
#
# The last stage (all-in-one) is the default target.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS base
ENV NODE_ENV=production
WORKDIR /app

# ---------------------------------------------------------------------------------------------
# Only the package manifests: the root and every workspace that package-lock.json names. The
# dependency layer below is then rebuilt when a package.json or the lock changes, not on every
# source edit (BuildKit caches COPY --from by content).
FROM base AS manifests
COPY . /src
WORKDIR /src
RUN <<'SCRIPT'
node --input-type=commonjs -e '
const fs = require("node:fs");
const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
const dirs = Object.keys(lock.packages).filter((key) => !key.split("/").includes("node_modules"));
for (const dir of dirs) {
  const target = dir === "" ? "/out" : "/out/" + dir;
  fs.mkdirSync(target, { recursive: true });
  fs.copyFileSync(dir === "" ? "package.json" : dir + "/package.json", target + "/package.json");
}
fs.copyFileSync("package-lock.json", "/out/package-lock.json");
console.log("workspaces: " + dirs.filter(Boolean).join(" "));
'
SCRIPT

# ---------------------------------------------------------------------------------------------
# Production dependencies of every workspace. --omit=dev drops the dev tooling, including the
# `node` npm package (a Node binary for old machines): the image's own Node 24 runs the code.
# npm ci links each workspace into node_modules/@sched/* (symlinks to shared/*, services/*,
# migrations), so the .ts sources resolve outside node_modules, where Node strips types.
FROM base AS deps
COPY --from=manifests /out/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --no-audit --no-fund \
 && test ! -e node_modules/node \
 && test -L node_modules/@sched/kit

# ---------------------------------------------------------------------------------------------
# Application tree: dependencies + sources. .dockerignore admits only the package manifests,
# shared/, services/, migrations/ and deploy/healthcheck.mjs. Files stay owned by root and
# read-only for the runtime user; only /app/.data is writable.
FROM base AS runtime
COPY --from=deps /app/ ./
COPY . .
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node

# ---------------------------------------------------------------------------------------------
# Long-running HTTP services: listen on PORT (all interfaces), drain and exit on SIGTERM.
FROM runtime AS server
ENV PORT=3000
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "/app/deploy/healthcheck.mjs", "/health/ready"]

FROM server AS auth
# The Node flags of `npm start` and the benchmark servers (shared/kit/src/node-flags.ts): a young
# and an old generation bounded so each service stays within its memory budget under load.
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=128", "services/auth/src/main.ts"]

FROM server AS api
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=128", "services/api/src/main.ts"]

# ---------------------------------------------------------------------------------------------
# Operator CLI:  docker run --rm -e DATABASE_URL=... sched-tools create-admin --email E --password P
FROM runtime AS tools
ENTRYPOINT ["node", "services/launcher/src/cli.ts"]
CMD ["--help"]

# One-shot migration job (docker-compose's `migrate` service): exits 0 once the schema is current.
FROM tools AS migrate
CMD ["migrate"]

# ---------------------------------------------------------------------------------------------
# Everything in one process on one origin. Without DATABASE_URL/REDIS_URL it keeps its data
# (embedded Postgres, token store, cookie keys, mail files) under DATA_DIR: mount a volume there.
FROM server AS all-in-one
ENV DATA_DIR=/app/.data
VOLUME ["/app/.data"]
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=128", "services/launcher/src/start.ts"]
