# syntax=docker/dockerfile:1
# qeval in a container.
#
#   docker build -t qeval .                       the binary on Debian slim (the default)
#   docker build --target malloy -t qeval:malloy .  plus Node.js and the Malloy compiler, installed
#   docker run --rm -v "$PWD:/work" qeval run examples/chinook/suite.yaml -o out/
#
# The release workflow publishes both architectures as ghcr.io/qeval/qeval:<version>
# and :latest (the image examples/sharded/k8s-indexed-job.yaml names).

# build: cgo, as SQLite, DuckDB, the PostgreSQL parser and H3 are C/C++ libraries linked
# into the binary; .ci/build is the same script the release binaries are built with.
# The Go version follows go.mod (a test checks).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
RUN VERSION="$VERSION" COMMIT="$COMMIT" .ci/build /out

# base: the binary and what it links against beyond libc (the C++ runtime, for DuckDB),
# CA certificates for TLS (Redis, the LLM APIs, Azure Data Explorer), and a user of its
# own: files it writes in a mounted /work belong to uid 10001.
FROM debian:bookworm-slim AS base
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libstdc++6 \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/qeval qeval \
 && mkdir /work && chown qeval:qeval /work
COPY --from=build /out/qeval /usr/local/bin/qeval
USER qeval
WORKDIR /work
ENTRYPOINT ["qeval"]
CMD ["help"]

# malloy (optional target): Node.js and npm, with which qeval installs the pinned Malloy
# compiler (malloy/node, embedded in the binary) into the user cache on first use. The
# stage does that once, by running the bundled Malloy example, so a container starts
# ready and needs no network. The Malloy packages need Node.js 20 or later, newer than
# Debian 12's, so Node comes from the official image of the same Debian release.
FROM node:22-bookworm-slim AS node
FROM base AS malloy
USER root
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
COPY --chown=qeval:qeval examples/malloy /opt/qeval/examples/malloy
COPY --chown=qeval:qeval examples/spider/database /opt/qeval/examples/spider/database
USER qeval
RUN qeval run /opt/qeval/examples/malloy/suite.yaml --judge none --quiet -o /tmp/malloy-example \
 && rm -rf /tmp/malloy-example

# The default target: the binary alone.
FROM base AS runtime
