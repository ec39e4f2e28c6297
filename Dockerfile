# syntax=docker/dockerfile:1
# psd2-gateway as a container: the compiled build (dist/: one bundle, the SQL migrations, the sandbox's
# start snapshot) on Node 22 (LTS), production dependencies only, as the unprivileged user `node`.
# Build: docker build -t psd2-gateway .     Run: docker run -p 3000:3000 psd2-gateway
# With PostgreSQL and Redis: docker compose up (compose.yaml).

ARG NODE_IMAGE=node:22-bookworm-slim

# --- build: every dependency, then npm run build (prepare runs it during npm ci) ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The workspaces' manifests (the checker, the client and the demo, packages/): npm ci links them.
COPY packages/check/package.json ./packages/check/
COPY packages/client/package.json ./packages/client/
COPY packages/demo/package.json ./packages/demo/
# Scripts off here: prepare would build before the sources are copied.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY scripts ./scripts
COPY bin ./bin
COPY src ./src
COPY packages ./packages
# The snapshot's database files are written owner-only: readable by all, for the user `node` below.
RUN npm run build && chmod -R a+rX dist

# --- runtime: production dependencies and the build, nothing else ---
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# Their manifests only, for npm ci to agree with the lock file: their code is in the bundle (dist/).
COPY packages/check/package.json ./packages/check/
COPY packages/client/package.json ./packages/client/
COPY packages/demo/package.json ./packages/demo/
# --ignore-scripts: prepare (npm run build) needs the devDependencies; the build comes from the stage above.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY bin ./bin
COPY --from=build /app/dist ./dist
# The embedded database's folder (DATA_DIR=/app/data), writable by the user that runs the gateway.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# No curl in the slim image: Node asks /readyz (200 when the database answers in time), over HTTPS
# when TLS_CERT is set (this container's own certificate: not verified for a check on loopback).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const h=require(process.env.TLS_CERT?'node:https':'node:http');h.get({host:'127.0.0.1',port:process.env.PORT||3000,path:(process.env.BASE_PATH||'')+'/readyz',rejectUnauthorized:false,timeout:4000},(r)=>process.exit(r.statusCode===200?0:1)).on('timeout',()=>process.exit(1)).on('error',()=>process.exit(1))"]
# node directly (not npm start): SIGTERM reaches the gateway, which stops within SHUTDOWN_TIMEOUT_MS.
# A 4 MB young generation (fewer scavenges under a live load); PGlite's WebAssembly on Liftoff only
# (docs/benchmarks.md, "Start and memory of the sandbox"; no WebAssembly runs on PostgreSQL).
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=256", "--liftoff-only", "bin/psd2-gateway.mjs", "serve"]
