# One image for every process (the last, default target); the command picks the role. The
# `oracle` target is the oracle alone. `intentd` is the production binary
# (api, worker, oracle, migrate, admin); `intentd-dev` is the development launcher, here for the
# local chains (`intentd-dev devnet`) of docker-compose.yml. The flags are the Makefile's.
FROM golang:1.26 AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-tags=nomsgpack
COPY go.mod go.sum ./
# go.mod replaces modules the development Temporal server leaves out with these (devstack/trim).
COPY devstack/trim devstack/trim
RUN go mod download
COPY . .
RUN go build -trimpath -o /out/ ./cmd/intentd ./cmd/intentd-dev

# The attestation oracle alone (`docker build --target oracle`): the production binary and the
# chain files, nothing else. Secrets come from the environment or from files a Vault agent
# writes under /vault/secrets (read at start when present; docs/oracle.md).
FROM gcr.io/distroless/static-debian12 AS oracle
COPY --from=build /out/intentd /usr/local/bin/
COPY configs /configs
ENV CHAINS_CONFIG_DIR=/configs HTTP_PORT=3000
EXPOSE 3000
USER nonroot
ENTRYPOINT ["/usr/local/bin/intentd", "oracle"]

# Every process (the default target): the command picks the role.
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/intentd /out/intentd-dev /usr/local/bin/
COPY configs /configs
ENV CHAINS_CONFIG_DIR=/configs
ENTRYPOINT ["/usr/local/bin/intentd"]
