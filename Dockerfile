# One Dockerfile, one target per kind of process; every image runs as nonroot on distroless.
#   intentd (default)  the production binary: api, worker, dispatcher, oracle, migrate, admin.
#                      It never links the Temporal server (internal/archtest checks it).
#   oracle             the same binary, started as the attestation oracle, with its chain files.
#   devnet             intentd-dev, the development launcher, for the local chains of
#                      docker-compose.yml only (it embeds the Temporal server: never deploy it).
# The build flags are the Makefile's, with cgo (go-ethereum's libsecp256k1) linked statically:
# netgo and osusergo keep glibc's resolver and user lookup out, so the binaries need no libc on
# distroless/static. Secrets never enter an image: they are mounted files
# (NAME_FILE variables, /vault/secrets for the oracle).
FROM golang:1.26 AS build
WORKDIR /src
ENV CGO_ENABLED=1 GOFLAGS=-tags=nomsgpack,netgo,osusergo
COPY go.mod go.sum ./
# go.mod replaces modules the development Temporal server leaves out with these (devstack/trim).
COPY devstack/trim devstack/trim
RUN go mod download
COPY . .
RUN go build -trimpath -ldflags=-extldflags=-static -o /out/intentd ./cmd/intentd

FROM build AS build-dev
RUN go build -trimpath -ldflags=-extldflags=-static -o /out/intentd-dev ./cmd/intentd-dev

# The local chains (docker-compose.yml's devnet): the EVM chains and the local perps exchange
# (8337), not the local Solana chain, a Node.js process (devnet/svm): this image has no Node.js.
FROM gcr.io/distroless/static-debian12:nonroot AS devnet
COPY --from=build-dev /out/intentd-dev /usr/local/bin/
ENV DEVNET_SOLANA=false
EXPOSE 8545 8546 8547 8337
ENTRYPOINT ["/usr/local/bin/intentd-dev", "devnet"]

# The attestation oracle alone (`docker build --target oracle`): the production binary and the
# chain files. Secrets come from files a Vault agent (or compose's secrets) writes under
# /vault/secrets, read at start (docs/oracle.md).
FROM gcr.io/distroless/static-debian12:nonroot AS oracle
COPY --from=build /out/intentd /usr/local/bin/
COPY configs /configs
ENV CHAINS_CONFIG_DIR=/configs HTTP_PORT=3000
EXPOSE 3000 9100
ENTRYPOINT ["/usr/local/bin/intentd", "oracle"]

# Every engine process (the default target): the command picks the role.
FROM gcr.io/distroless/static-debian12:nonroot AS intentd
COPY --from=build /out/intentd /usr/local/bin/
COPY configs /configs
ENV CHAINS_CONFIG_DIR=/configs
EXPOSE 8080 9100
ENTRYPOINT ["/usr/local/bin/intentd"]
