# syntax=docker/dockerfile:1
# The same steps CI runs (.ci/run): npm ci and npm run build; the runtime stage installs the
# production dependencies alone (npm ci --omit=dev) beside the built CLI. Nothing is compiled:
# the one native module (@photostructure/sqlite, SQLite) ships its binaries, glibc and musl, in
# its npm tarball, so neither stage needs a compiler.

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY adapters ./adapters
RUN npm run build

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund
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
