# syntax=docker/dockerfile:1
# The Catalogue API as a container image: build stage compiles, runtime stage holds the compiled
# service and its production dependencies only, run as an unprivileged user.
# Built and run where a container registry is reachable (the base image is pulled from one); the
# same steps are run on the host by test/scale-out/image-steps.test.ts, and this file is linted in CI.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/package.json
COPY examples/agency-site/package.json examples/agency-site/package.json
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
# The compiled service, the lockfile (with the workspaces' manifests it names) and the production
# dependencies only: no TypeScript, no tests, no dev tools, and none of the workspaces' (the SDK's,
# the example site's map and land data): the service uses neither.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/sdk/package.json sdk/package.json
COPY --from=build /app/examples/agency-site/package.json examples/agency-site/package.json
RUN npm ci --omit=dev --workspaces=false --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force \
    && mkdir -p /data \
    && chown node:node /data
COPY --from=build /app/dist dist
# PGlite's data directory (only used without DATABASE_URL): keep it on a volume.
VOLUME ["/data"]
USER node
EXPOSE 8080 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM reaches node directly (exec form, PID 1): drain, finish, exit 0 (docs/operations.md).
STOPSIGNAL SIGTERM
CMD ["node", "dist/cli/main.js", "serve"]
