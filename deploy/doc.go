// Package deploy holds what runs intentd in production, beside the repository's
// docker-compose.yml and Dockerfile: Kubernetes manifests (kubernetes/), Prometheus's scrape
// configuration and alerting rules (prometheus/), the Grafana dashboard (grafana/), and the
// Temporal and Postgres setup scripts the compose topology mounts. Its test checks them
// (docs/operations.md, "Deploying"); there is no Go code to run.
package deploy
