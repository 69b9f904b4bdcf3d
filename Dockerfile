# One image for every intentd process; the command picks the role.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/intentd ./cmd/intentd

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/intentd /usr/local/bin/intentd
COPY configs /configs
ENV CHAINS_CONFIG_DIR=/configs
ENTRYPOINT ["/usr/local/bin/intentd"]
