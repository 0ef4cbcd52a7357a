# syntax=docker/dockerfile:1
# Parley in one image: the compiled server and the built web app, production packages only, run as the
# unprivileged `node` user with its data in the /data volume. See docs/deploy.md.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3, @node-rs/argon2 and sharp install prebuilt binaries; the toolchain is there in case one has
# to be compiled from source (a platform without a prebuilt binary).
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# The manifests first: the install layer is reused as long as no dependency changes.
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY packages/contracts/package.json packages/contracts/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN npm ci --no-audit --no-fund
COPY . .
# The web app and the widget page into apps/web/dist, the server into apps/server/dist.
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages/contracts ./packages/contracts
COPY --from=build /app/apps/server ./apps/server
COPY --from=build /app/apps/web/package.json ./apps/web/package.json
COPY --from=build /app/apps/web/dist ./apps/web/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# /healthz answers as soon as the process serves; the image has no curl, Node's fetch asks instead.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The server itself, not npm: it receives SIGTERM from `docker stop` and closes cleanly (SHUTDOWN_GRACE_MS).
CMD ["node", "apps/server/dist/main.js"]
