#!/usr/bin/env bash
# chromium.sh installs Debian's chromium (the headless browser of the SDK suite's websocket
# case, e2e/browser.test.mjs) once: nothing to do when /usr/bin/chromium is there. It needs
# root and the Debian mirror; `make test` runs it (make e2e-browser).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "chromium.sh: /usr/bin/chromium is missing and only root can install it (apt-get install chromium)" >&2
  exit 1
fi
echo "chromium.sh: installing Debian's chromium (once)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version >&2
