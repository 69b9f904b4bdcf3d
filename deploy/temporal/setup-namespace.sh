#!/bin/sh
# Registers the namespace and the custom search attributes the intent workflows write and the
# Web UI filters on (workflows.SearchAttributeTypes). Safe to run on every start.
set -eu
temporal operator namespace describe --namespace default >/dev/null 2>&1 ||
  temporal operator namespace create --namespace default --retention 30d
temporal operator search-attribute create --namespace default \
  --name IntentStatus --type Keyword --name OriginChainId --type Int --name DestinationChainId --type Int \
  --name ApiKeyId --type Keyword --name User --type Keyword --name FailReason --type Keyword \
  --name DepositAddress --type Keyword 2>/dev/null || true
# Added later, on its own: the command above fails as a whole once any of its attributes exists.
temporal operator search-attribute create --namespace default --name RefundHold --type Keyword 2>/dev/null || true
temporal operator search-attribute list --namespace default
