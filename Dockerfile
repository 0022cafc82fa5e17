# syntax=docker/dockerfile:1
# The same steps CI runs (.ci/run): npm ci, npm run build, npm prune --omit=dev; the runtime stage
# takes the pruned node_modules. better-sqlite3 (the one native module) compiles SQLite from
# source where no prebuilt binary can be fetched, which is most of an install's time: it is built
# once, here, and both stages are the same image, so the binary runs in the runtime stage, which
# needs no compiler.

FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY adapters ./adapters
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY README.md .env.example ./
COPY docs ./docs
COPY adapters/slack/manifest.yml ./adapters/slack/manifest.yml
RUN chmod +x dist/src/cli.js && ln -s /app/dist/src/cli.js /usr/local/bin/chatbridge \
  && mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
ENV CHATBRIDGE_DATA_DIR=/app/data
EXPOSE 3000
CMD ["chatbridge", "start"]
